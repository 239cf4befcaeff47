import type { GroupManifest } from "../group.js";
import { TOOL_LSP } from "./names.js";

/** The language-server group's tools, for the lists derived in ../manifests.ts; its code loads on first use. */
export const LSP = {
  names: TOOL_LSP,
  load: async () => (await import("./index.js")).lspTools,
} as const satisfies GroupManifest;
