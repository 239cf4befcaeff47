import type { GroupManifest } from "../group.js";

/** The code group's tools, for the lists derived in ../manifests.ts; its code loads on first use. */
export const CODE = {
  names: {
    runCode: "run_code",
  },
  load: async () => (await import("./index.js")).codeTools,
} as const satisfies GroupManifest;
