import type { GroupManifest } from "../group.js";

/** Tools declared in configuration: their names come from it, so asked for by name they load with every group. */
export const CUSTOM = {
  names: {},
  load: async () => (await import("./index.js")).customTools,
} as const satisfies GroupManifest;
