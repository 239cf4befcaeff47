import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import { gitPaths, hooksRefusal, runGit } from "./run-git.js";
import { ToolError } from "../../core/errors.js";
import type { ToolContext } from "../../core/tool.js";
import { isSensitivePath, sensitivePathspecs } from "../../workspace/sensitive.js";

/** Stages the named files and commits. */
export const gitCommit = defineTool({
  name: TOOL.gitCommit,
  description: loadDescription(import.meta.url, "git-commit.txt"),
  effect: "write",
  input: z.object({
    message: z.string().min(1).describe("The commit message"),
    files: z.array(z.string()).optional().describe("Paths to stage before committing"),
    all: z.boolean().default(false).describe("Include every tracked change (git commit -a)"),
  }),
  scope: { kind: "path", subjects: async ({ files }, ctx) => gitPaths(files, ctx) },
  access: () => ({ writes: [".git"], reads: ["*"] }),
  execute: async ({ message, files, all }, ctx) => {
    const paths = await gitPaths(files, ctx);
    const secret = await secretStaged(paths, all, ctx);
    if (secret) {
      throw new ToolError(
        "PERMISSION_DENIED",
        `Committing ${all && !paths.includes(secret) ? "every tracked change" : "these paths"} would take ${secret}, which may hold secrets, ` +
          `into the history (and with it to any remote); nothing was staged or committed. Name the files to commit without it, ` +
          `or name it itself (files: ["${secret}"]) under a rule that allows that.`,
      );
    }
    // The files named, not patterns: as a pathspec, `*` or `.e*` would stage .env unnamed.
    if (paths.length) await runGit(["add", "--", ...paths.map((p) => `:(literal)${p}`)], ctx);
    const refusal = await hooksRefusal(ctx);
    await runGit(["commit", ...(all ? ["-a"] : []), "-m", message], ctx, { hooks: refusal === undefined });
    const committed = await runGit(["log", "-n1", "--stat", "--pretty=format:Committed %h: %s"], ctx);
    return refusal ? `${committed}\n[${refusal}]` : committed;
  },
});

/**
 * A file that may hold secrets the commit would take without naming it: inside a folder given
 * (`files: ["."]` stages what .gitignore does not hide), or, with `all`, a tracked one changed.
 * Those named themselves were judged by the policy (a rule naming the file releases it). Asked of
 * git with the secrets' pathspecs, so the answer is short however large the tree.
 */
async function secretStaged(paths: readonly string[], all: boolean, ctx: ToolContext): Promise<string | undefined> {
  const listed = async (args: string[]) =>
    (await runGit(["ls-files", "-z", ...args, "--", ...sensitivePathspecs()], ctx)).split("\0").filter(Boolean);
  const folders = paths.filter((p) => !isSensitivePath(p));
  const within = (file: string) => folders.some((dir) => dir === "" || dir === "." || file === dir || file.startsWith(`${dir}/`));
  if (folders.length) {
    const found = (await listed(["--others", "--exclude-standard", "--modified"])).find((file) => within(file) && !paths.includes(file));
    if (found) return found;
  }
  return all ? (await listed(["--modified"])).find((file) => !paths.includes(file)) : undefined;
}
