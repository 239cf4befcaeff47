import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import { optionalPath } from "./path-arg.js";
import { assertNotOption, gitPaths, runGit } from "./run-git.js";

/** `git diff` of the working tree, the index, or against a revision; never an external diff program. */
export const gitDiff = defineTool({
  name: TOOL.gitDiff,
  description: loadDescription(import.meta.url, "git-diff.txt"),
  effect: "read",
  cacheable: false,
  input: z.object({
    path: optionalPath,
    staged: z.boolean().default(false).describe("Show staged changes instead of unstaged ones"),
    ref: z.string().optional().describe("Compare against this revision (e.g. HEAD~1, main)"),
  }),
  execute: async ({ path, staged, ref }, ctx) => {
    assertNotOption(ref, "ref");
    const paths = await gitPaths(path ? [path] : [], ctx);
    const out = await runGit(["diff", "--no-ext-diff", ...(staged ? ["--staged"] : []), ...(ref ? [ref] : []), "--", ...paths], ctx);
    return out.trim() ? out : staged ? "No staged changes." : "No changes.";
  },
});
