import { realpathSync } from "node:fs";
import path from "node:path";
import { spawn } from "../../process/child-process.js";
import { ToolError } from "../../core/errors.js";
import type { ToolContext } from "../../core/tool.js";
import { killProcessTree } from "../../process/process-tree.js";
import { commandEnv } from "../../process/command-env.js";
import { gitGuardArgs } from "../../process/git-guard.js";
import { pathBelow } from "../../workspace/path-below.js";
import { executionSensitiveReason, isProtectedPath } from "../../workspace/protected.js";

const MAX_CAPTURE = 8 * 1024 * 1024;

/**
 * Runs git without a shell, in the workspace, never waiting on a terminal or pager. Every setting
 * a repository could use to run a program (fsmonitor, filters, external diff, hooks) is switched
 * off (see process/git-guard.ts); `hooks` keeps the repository's hooks for a commit a person approved.
 */
export async function runGit(
  args: readonly string[],
  ctx: ToolContext,
  options: { timeoutMs?: number; okCodes?: number[]; hooks?: boolean } = {},
): Promise<string> {
  const argv = [...(await gitGuardArgs(ctx.workspace.root, { hooks: options.hooks ?? false })), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn("git", argv, {
      cwd: ctx.workspace.root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: commandEnv({ LC_ALL: "C" }),
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      if (out.length < MAX_CAPTURE) out += d.toString("utf8");
    });
    child.stderr.on("data", (d: Buffer) => {
      if (err.length < 64 * 1024) err += d.toString("utf8");
    });
    const kill = () => void killProcessTree(child.pid!);
    const timer = setTimeout(() => {
      kill();
      reject(new ToolError("TIMEOUT", `git ${args[0]} took longer than ${(options.timeoutMs ?? 60_000) / 1000} s and was stopped.`));
    }, options.timeoutMs ?? 60_000);
    ctx.signal.addEventListener("abort", kill, { once: true });
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(
        (e as NodeJS.ErrnoException).code === "ENOENT"
          ? new ToolError("UNAVAILABLE", "git is not installed on this machine (apt-get install git).", { recoverable: false })
          : e,
      );
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", kill);
      if (code === 0 || options.okCodes?.includes(code ?? -1)) return resolve(out);
      const message = err.trim() || out.trim() || `git exited with code ${code}`;
      if (/not a git repository/i.test(message)) {
        return reject(
          new ToolError(
            "EXECUTION_ERROR",
            `The workspace is not a git repository (${ctx.workspace.root}). Run git init first, or use file tools.`,
          ),
        );
      }
      reject(new ToolError("EXECUTION_ERROR", `git ${args[0]} failed: ${message}`));
    });
  });
}

/**
 * Why the repository's hooks may not run for a commit or push a person approved; undefined when
 * they may. They run from where no tool writes unasked: `.git/hooks` (no tool writes it, and it is
 * read-only to commands), a folder of a kind of code (`.husky`, `.githooks`: writing there needs a
 * person), or outside the workspace. `core.hooksPath` naming any other folder of the workspace
 * would run what a tool put there unasked, on the host.
 */
export async function hooksRefusal(ctx: ToolContext): Promise<string | undefined> {
  // With the hooks on, as the commit would run: the guard's own setting would answer /dev/null. rev-parse runs none.
  const named = (await runGit(["rev-parse", "--git-path", "hooks"], ctx, { hooks: true })).trim();
  const absolute = path.resolve(ctx.workspace.root, named);
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    return undefined; // no hooks folder: nothing would run
  }
  // "/"-separated, "" for the top.
  const folder = pathBelow(ctx.workspace.root, real);
  if (folder === undefined) return undefined;
  const hook = folder === "" ? "pre-commit" : `${folder}/pre-commit`;
  // Of a repository's own files, commands may write all but hooks, config and info (git writes its objects there).
  const inRepository = /(^|\/)[^/]*\.git(\/|$)/i.test(folder);
  if (inRepository ? /^\.git\/hooks(\/|$)/.test(folder) : isProtectedPath(hook) || executionSensitiveReason(hook)) return undefined;
  return (
    `git's hooks folder (core.hooksPath) is ${folder === "" ? "the top of the workspace" : folder}, which tools may write without ` +
    "asking, so its hooks did not run. Tell the person: hooks kept in .git/hooks, .githooks or .husky run."
  );
}

/** Workspace-relative paths for git, each resolved inside the workspace first. */
export async function gitPaths(paths: readonly string[] | undefined, ctx: ToolContext): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths ?? []) out.push((await ctx.workspace.resolve(p)).relative);
  return out;
}

/** Refuses revisions and names that git would read as options; git checks the rest itself. */
export function assertNotOption(value: string | undefined, what: string): void {
  if (value !== undefined && (value.startsWith("-") || /[\s\0]/.test(value))) {
    throw new ToolError("INVALID_ARGS", `${what} "${value}" is not valid: it must not start with "-" or contain whitespace.`);
  }
}
