import { statSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../../core/errors.js";
import type { ToolContext } from "../../core/tool.js";
import { resolveArg } from "../resolve-arg.js";

/** Where a search runs, resolved inside the workspace. */
export interface SearchRoot {
  /** Absolute real path of the file or directory searched. */
  absolute: string;
  /** The workspace root (or extra root) that holds it: the working directory of ripgrep. */
  root: string;
  /** `absolute` relative to `root`, "/"-separated; "." for the root itself. */
  relative: string;
  isFile: boolean;
  /** What the model sees for a path given relative to `root`. */
  display: (relativeToRoot: string) => string;
}

/**
 * Resolves the `path` argument of glob and grep: it must lie inside the workspace after every
 * symbolic link is followed (INVALID_PATH otherwise, from the workspace) and exist. Synchronous:
 * one stat, where a trip to the thread pool and back would cost a small search a fifth of its time.
 */
export function resolveSearchRoot(ctx: ToolContext, input: string | undefined): SearchRoot {
  const given = searchPath(input);
  const resolved = resolveArg(ctx, given);
  let isFile: boolean;
  try {
    const st = statSync(resolved.absolute);
    if (!st.isFile() && !st.isDirectory()) {
      throw new ToolError("INVALID_ARGS", `"${given}" is neither a file nor a directory; give a file or a folder to search.`);
    }
    isFile = st.isFile();
  } catch (err) {
    if (err instanceof ToolError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new ToolError("FILE_NOT_FOUND", `"${given}" does not exist in the workspace. Check the path, or search from "." to find it.`);
    }
    throw err;
  }
  const main = resolved.root === ctx.workspace.root;
  return {
    absolute: resolved.absolute,
    root: resolved.root,
    relative: resolved.relative,
    isFile,
    // Paths in an extra root are shown absolute: relative ones would read as workspace paths.
    display: main ? (rel) => rel : (rel) => path.join(resolved.root, rel),
  };
}

/** The `path` argument as searched: the workspace when none is given. */
function searchPath(input: string | undefined): string {
  return input === undefined || input.trim() === "" ? "." : input;
}

/** The scope subject and access path of a search: the resolved search root, relative. */
export function searchSubject(ctx: ToolContext, input: string | undefined): string {
  return ctx.workspace.display(resolveArg(ctx, searchPath(input)));
}

/** The policy and scheduler hooks of a tool that searches under `path`: the resolved search root. */
export const searchRootHooks = {
  scope: { kind: "path" as const, subjects: (args: { path?: string }, ctx: ToolContext) => [searchSubject(ctx, args.path)] },
  access: (args: { path?: string }, ctx: ToolContext) => ({ reads: [searchSubject(ctx, args.path)] }),
};
