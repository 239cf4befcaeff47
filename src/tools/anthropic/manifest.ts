import type { GroupManifest } from "../group.js";

/** The anthropic group's tools, for the lists derived in ../manifests.ts; its code loads on first use. */
export const ANTHROPIC = {
  names: {
    anthropicUsage: "anthropic_usage",
  },
  needs: ["ANTHROPIC_ADMIN_API_KEY"],
  load: async () => (await import("./index.js")).anthropicTools,
} as const satisfies GroupManifest;
