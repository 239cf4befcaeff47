import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import { TOOL } from "../names.js";
import { assertNotOption, gitPaths, runGit } from "./run-git.js";

const optionalPath = z.string().optional().describe("A file or directory in the workspace");
const everything = ["*"];

/** `git status`, `git diff`, `git log`, `git commit`, `git branch`, `git push` (spec 002's git tools). */
export function createGitTools() {
  const status = defineTool({
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

  const diff = defineTool({
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

  const log = defineTool({
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

  const commit = defineTool({
    name: TOOL.gitCommit,
    description: loadDescription(import.meta.url, "git-commit.txt"),
    effect: "write",
    input: z.object({
      message: z.string().min(1).describe("The commit message"),
      files: z.array(z.string()).optional().describe("Paths to stage before committing"),
      all: z.boolean().default(false).describe("Include every tracked change (git commit -a)"),
    }),
    scope: { kind: "path", subjects: async ({ files }, ctx) => gitPaths(files, ctx) },
    access: () => ({ writes: [".git"], reads: everything }),
    execute: async ({ message, files, all }, ctx) => {
      const paths = await gitPaths(files, ctx);
      if (paths.length) await runGit(["add", "--", ...paths], ctx);
      await runGit(["commit", ...(all ? ["-a"] : []), "-m", message], ctx);
      return runGit(["log", "-n1", "--stat", "--pretty=format:Committed %h: %s"], ctx);
    },
  });

  const branch = defineTool({
    name: TOOL.gitBranch,
    description: loadDescription(import.meta.url, "git-branch.txt"),
    effect: "write",
    input: z.object({
      name: z.string().optional().describe("Branch to create"),
      create: z.boolean().default(false).describe("Create the branch named by name"),
      checkout: z.boolean().default(false).describe("Switch to the new branch"),
    }),
    assess: ({ create }) => (create ? undefined : { effect: "read" }),
    execute: async ({ name, create, checkout }, ctx) => {
      if (!create) return runGit(["branch", "--list", "--no-color"], ctx);
      if (!name) throw new ToolError("INVALID_ARGS", "create: true needs a branch name in name.");
      assertNotOption(name, "Branch name");
      await runGit(checkout ? ["switch", "-c", name] : ["branch", name], ctx);
      return checkout ? `Created and switched to branch ${name}.` : `Created branch ${name}.`;
    },
  });

  const push = defineTool({
    name: TOOL.gitPush,
    description: loadDescription(import.meta.url, "git-push.txt"),
    effect: "destructive",
    input: z.object({
      remote: z.string().default("origin").describe("Remote name"),
      branch: z.string().optional().describe("Branch to push (default: the current one)"),
      force: z.boolean().default(false).describe("Overwrite the remote branch if it moved (uses --force-with-lease)"),
    }),
    timeoutMs: () => 180_000,
    execute: async ({ remote, branch, force }, ctx) => {
      assertNotOption(remote, "Remote");
      assertNotOption(branch, "Branch");
      const target = branch ?? (await runGit(["rev-parse", "--abbrev-ref", "HEAD"], ctx)).trim();
      const out = await runGit(["push", "--porcelain", ...(force ? ["--force-with-lease"] : []), remote, target], ctx, {
        timeoutMs: 170_000,
      });
      return out.trim() || `Pushed ${target} to ${remote}.`;
    },
  });

  return [status, diff, log, commit, branch, push];
}
