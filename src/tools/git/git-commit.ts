import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import { gitPaths, hooksRefusal, runGit } from "./run-git.js";

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
    if (paths.length) await runGit(["add", "--", ...paths], ctx);
    const refusal = await hooksRefusal(ctx);
    await runGit(["commit", ...(all ? ["-a"] : []), "-m", message], ctx, { hooks: refusal === undefined });
    const committed = await runGit(["log", "-n1", "--stat", "--pretty=format:Committed %h: %s"], ctx);
    return refusal ? `${committed}\n[${refusal}]` : committed;
  },
});
