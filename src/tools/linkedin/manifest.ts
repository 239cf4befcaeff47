import type { GroupManifest } from "../group.js";

/** The linkedin group's tools, for the lists derived in ../manifests.ts; its code loads on first use. */
export const LINKEDIN = {
  names: {
    linkedinJobs: "linkedin_jobs",
    linkedinJobDetail: "linkedin_job_detail",
  },
  load: async () => (await import("./index.js")).linkedinTools,
} as const satisfies GroupManifest;
