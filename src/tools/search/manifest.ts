import type { GroupManifest } from "../group.js";

/** The search group's tools, for the lists derived in ../manifests.ts; its code loads on first use. */
export const SEARCH = {
  names: {
    glob: "glob",
    grep: "grep",
  },
  aliases: { search_files: "glob" },
  load: async () => (await import("./index.js")).searchTools,
} as const satisfies GroupManifest;
