import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ToolError } from "../core/errors.js";
import { isProtectedPath } from "./protected.js";
import { holdsTackleFolder, inTackleFolder } from "./own-folders.js";
import { pathBelow } from "./path-below.js";
import { type ExtraRoot, type ResolvedPath, type ResolveOptions, type ToolWorkspace } from "../core/tool-workspace.js";

export type { ExtraRoot, ResolvedPath, ResolveOptions } from "../core/tool-workspace.js";

const MAX_LINK_DEPTH = 40;

/**
 * The boundary every tool works within. A path resolves against the root, follows symlinks and
 * must land inside the root or an extra root from configuration; a sibling directory that only
 * shares a prefix (`ws` vs `ws-evil`) is outside.
 */
export class Workspace implements ToolWorkspace {
  readonly root: string;
  readonly extraRoots: readonly ExtraRoot[];

  private constructor(root: string, extraRoots: readonly ExtraRoot[]) {
    this.root = root;
    this.extraRoots = extraRoots;
  }

  /** Opens a workspace at `root` (which must exist), with optional extra roots. */
  static open(root: string, extraRoots: readonly ExtraRoot[] = []): Workspace {
    const real = realpathSync(path.resolve(root));
    const extras = extraRoots.map((r) => ({ path: realOrToBe(path.resolve(real, r.path)), writable: r.writable }));
    return new Workspace(real, extras);
  }

  /** A workspace with one more extra root (the runner adds its spill directory this way). */
  withExtraRoot(extra: ExtraRoot): Workspace {
    return Workspace.open(this.root, [...this.extraRoots, extra]);
  }

  /** True when the absolute path is the root or below it (not merely sharing a prefix). */
  static isInside(root: string, absolute: string): boolean {
    return pathBelow(root, absolute) !== undefined;
  }

  /** The root containing an absolute (already real) path, if any. */
  rootOf(absolute: string, write = false): string | undefined {
    if (Workspace.isInside(this.root, absolute)) return this.root;
    return this.extraRoots.find((r) => (!write || r.writable) && Workspace.isInside(r.path, absolute))?.path;
  }

  /** Relative display form of an absolute path inside the workspace. */
  relative(absolute: string): string {
    const rel = pathBelow(this.root, absolute);
    return rel === undefined ? absolute : rel || ".";
  }

  /** How a resolved path is shown to the model: relative in the root, absolute in an extra root. */
  display(resolved: ResolvedPath): string {
    return resolved.root === this.root ? resolved.relative : resolved.absolute;
  }

  /**
   * Resolves `input` to a real path inside the workspace, or throws INVALID_PATH saying why.
   * Missing files are fine (a write may create them) as long as where they would be is inside.
   */
  async resolve(input: string, options: ResolveOptions = {}): Promise<ResolvedPath> {
    return this.resolveSync(input, options);
  }

  /** {@link resolve}, synchronously: resolution makes only synchronous system calls. */
  resolveSync(input: string, options: ResolveOptions = {}): ResolvedPath {
    if (typeof input !== "string" || input.length === 0) throw invalid("The path is empty.");
    if (input.includes("\0")) throw invalid("The path contains a null byte.");
    if (input.startsWith("~")) {
      throw invalid(`"${input}" uses "~"; paths are relative to the workspace root (${this.root}).`);
    }
    // Models copy file URIs from language servers and editors: the path they name, under the same rules.
    const lexical = path.resolve(this.root, writtenPath(input, this.root));
    const absolute = realOf(lexical, 0);
    const root = this.rootOf(absolute, options.write);
    if (!root) {
      const lexicalInside = this.rootOf(lexical) !== undefined;
      throw invalid(
        lexicalInside
          ? `"${input}" leads outside the workspace through a symbolic link; only paths inside ${this.root} are allowed.`
          : `"${input}" is outside the workspace; use a path inside ${this.root}.`,
      );
    }
    const relative = pathBelow(root, absolute) || ".";
    if (inTackleFolder(absolute)) {
      throw new ToolError(
        "PERMISSION_DENIED",
        `"${relative}" is inside tackle's own program, cache or state folder, which tools may not read or change.`,
      );
    }
    if (options.write && absolute !== root && holdsTackleFolder(absolute)) {
      throw new ToolError(
        "PERMISSION_DENIED",
        `"${relative}" holds tackle's own program, cache or state folder, which tools may not move, replace or delete.`,
      );
    }
    if (options.write && root === this.root && isProtectedPath(relative)) {
      throw new ToolError(
        "PERMISSION_DENIED",
        `"${relative}" is protected: tools may not change tackle's configuration or git's hooks and config.`,
      );
    }
    return { absolute, relative, root };
  }
}

/** Whether the input is a file URI (`file:///src/a.ts`) rather than a path. */
export function isFileUrl(input: string): boolean {
  return input.startsWith("file://");
}

/** The path an input names: itself, or the path of a file URI (INVALID_PATH for another machine's). */
export function writtenPath(input: string, root: string): string {
  if (!isFileUrl(input)) return input;
  try {
    return fileURLToPath(input);
  } catch (err) {
    throw invalid(`"${input}" is not a file URI of this machine (${(err as Error).message}); give a path inside ${root}.`);
  }
}

function invalid(message: string): ToolError {
  return new ToolError("INVALID_PATH", message);
}

/**
 * The real path of `p`: symlinks followed, including a dangling one at the end (its target is
 * what a write would create), and a missing tail appended to the real path of what exists.
 * Synchronous: each step is one system call, where the promise API costs a thread-pool round
 * trip (and a turn of the queue) on every tool call.
 */
function realOf(p: string, depth: number): string {
  if (depth > MAX_LINK_DEPTH) throw invalid("Too many levels of symbolic links.");
  try {
    return realpathSync.native(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") {
      if (code === "ELOOP") throw invalid("Too many levels of symbolic links.");
      throw err;
    }
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  const realParent = realOf(parent, depth + 1);
  const here = path.join(realParent, path.basename(p));
  try {
    // Missing is the usual answer here (a file about to be made): asked without an exception.
    if (lstatSync(here, { throwIfNoEntry: false })?.isSymbolicLink())
      return realOf(path.resolve(realParent, readlinkSync(here)), depth + 1);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT" && (err as NodeJS.ErrnoException).code !== "ENOTDIR") throw err;
  }
  return here;
}

/** The real path of `p`, or for a folder not made yet (the runner's for cut outputs), its real parent's child. */
function realOrToBe(p: string): string {
  try {
    return realpathSync(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    return path.join(realpathSync(path.dirname(p)), path.basename(p));
  }
}
