import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { isSensitivePath, sensitivePathspecs } from "../../workspace/sensitive.js";
import { TOOL } from "../names.js";
import { NO_DIFF_PROGRAMS } from "../../process/git-guard.js";
import { optionalPath } from "./path-arg.js";
import { assertNotOption, gitPaths, runGit } from "./run-git.js";

const SECRETS = sensitivePathspecs();
const NOT_SECRETS = sensitivePathspecs(true);

/**
 * `git diff` of the working tree, the index, or against a revision; never an external diff program.
 * Files that may hold secrets are left out (and named), as the file tools refuse them, unless the
 * call names one and configuration allowed that.
 */
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
  // A path is judged like a file tool's: one that may hold secrets needs a rule that names it.
  scope: { kind: "path", subjects: async ({ path }, ctx) => gitPaths(path ? [path] : [], ctx) },
  execute: async ({ path, staged, ref }, ctx) => {
    assertNotOption(ref, "ref");
    const paths = await gitPaths(path ? [path] : [], ctx);
    const named = paths.length > 0 && paths.every((p) => isSensitivePath(p));
    const diff = ["diff", ...NO_DIFF_PROGRAMS, ...(staged ? ["--staged"] : []), ...(ref ? [ref] : [])];
    const [out, hidden] = await Promise.all([
      runGit([...diff, "--", ...paths, ...(named ? [] : NOT_SECRETS)], ctx),
      named ? Promise.resolve("") : runGit([...diff, "--name-only", "--", ...(paths.length ? paths : ["."]), ...SECRETS], ctx),
    ]);
    const left = hidden.split("\n").filter((f) => f && isSensitivePath(f));
    const note = left.length
      ? `\n(Left out: ${left.join(", ")}, which may hold secrets. A rule naming one (permissions.allow: ["git_diff(${left[0]})"]) lets git_diff show it.)`
      : "";
    return out.trim() ? `${out}${note}` : `${staged ? "No staged changes." : "No changes."}${note}`;
  },
});
