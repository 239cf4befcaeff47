import type { GroupManifest } from "../group.js";

/** The web group's tools, for the lists derived in ../manifests.ts; its code loads on first use. */
export const WEB = {
  names: {
    webFetch: "web_fetch",
    webSearch: "web_search",
  },
  load: async () => (await import("./index.js")).webTools,
} as const satisfies GroupManifest;
