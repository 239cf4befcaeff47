import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import { optionalPath } from "./path-arg.js";
import { gitPaths, runGit } from "./run-git.js";

/** `git status --short --branch`. */
export const gitStatus = defineTool({
  name: TOOL.gitStatus,
  description: loadDescription(import.meta.url, "git-status.txt"),
  effect: "read",
  cacheable: false,
  input: z.object({ path: optionalPath }),
  execute: async ({ path }, ctx) => {
    const paths = await gitPaths(path ? [path] : [], ctx);
    const out = await runGit(["status", "--short", "--branch", "--", ...paths], ctx);
    return out.trim() ? out : "Nothing to report.";
  },
});
