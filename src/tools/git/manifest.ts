import type { GroupManifest } from "../group.js";

/** The git group's tools, for the lists derived in ../manifests.ts; its code loads on first use. */
export const GIT = {
  names: {
    gitStatus: "git_status",
    gitDiff: "git_diff",
    gitLog: "git_log",
    gitCommit: "git_commit",
    gitBranch: "git_branch",
    gitPush: "git_push",
  },
  load: async () => (await import("./index.js")).gitTools,
} as const satisfies GroupManifest;
