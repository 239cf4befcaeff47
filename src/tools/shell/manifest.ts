import type { GroupManifest } from "../group.js";

/** The shell group's tools, for the lists derived in ../manifests.ts; its code loads on first use. */
export const SHELL = {
  names: {
    shell: "shell",
    shellBackground: "shell_background",
  },
  aliases: { shell_exec: "shell" },
  variants: ["bash"],
  load: async () => (await import("./index.js")).shellTools,
} as const satisfies GroupManifest;
