import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import { optionalPath } from "./path-arg.js";
import { gitPaths, runGit } from "./run-git.js";

/** The latest commits, one line each. */
export const gitLog = defineTool({
  name: TOOL.gitLog,
  description: loadDescription(import.meta.url, "git-log.txt"),
  effect: "read",
  cacheable: false,
  input: z.object({ limit: z.number().int().min(1).max(200).default(20).describe("How many commits"), path: optionalPath }),
  execute: async ({ limit, path }, ctx) => {
    const paths = await gitPaths(path ? [path] : [], ctx);
    const out = await runGit(["log", `-n${limit}`, "--date=short", "--pretty=format:%h %ad %an: %s", "--", ...paths], ctx);
    return out.trim() ? out : "No commits yet.";
  },
});
