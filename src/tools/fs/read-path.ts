import { existsSync } from "node:fs";
import path from "node:path";
import { isFileUrl, Workspace, type ResolvedPath } from "../../workspace/workspace.js";
import { isSensitivePath } from "../../workspace/sensitive.js";
import { foldersUp } from "../../workspace/path-below.js";
import { lstatOrUndefined, statOrUndefined } from "./common.js";

/**
 * Spec 000's "walk-up" resolution of a relative path, kept inside the boundary: it is tried
 * against the current directory and each parent up to the workspace root, then the root, then
 * each folder above the root up to the repository's root when the workspace is a subfolder of a
 * repository (those count only where the configuration's `roots` let tools read). The first
 * that exists wins; when none does, the root's reading is used (and reported missing).
 */
export function resolveForRead(ws: Workspace, given: string): ResolvedPath {
  if (path.isAbsolute(given) || given.includes("\0") || isFileUrl(given)) return ws.resolveSync(given);
  for (const dir of belowRoot(ws.root)) {
    const found = existing(ws, path.join(dir, given), (c) => c.root === ws.root);
    if (found) return found;
  }
  const atRoot = ws.resolveSync(given);
  const above = readableAbove(ws);
  if (above.length === 0 || statOrUndefined(atRoot.absolute)) return atRoot;
  for (const dir of above) {
    const found = existing(ws, path.join(dir, given));
    if (found) return found;
  }
  return atRoot;
}

const readable = new WeakMap<Workspace, readonly string[]>();

/**
 * The folders above the workspace root, up to its repository's root, that the configuration's
 * roots let tools read; worked out once per workspace, so a read that finds its file pays nothing.
 */
function readableAbove(ws: Workspace): readonly string[] {
  let dirs = readable.get(ws);
  if (!dirs) {
    // A folder counts when a root holds it or lies inside it (a candidate may reach down into the root).
    const reaches = (dir: string) => ws.extraRoots.some((r) => Workspace.isInside(r.path, dir) || Workspace.isInside(dir, r.path));
    dirs = ws.extraRoots.length === 0 ? [] : aboveRoot(ws.root).filter(reaches);
    readable.set(ws, dirs);
  }
  return dirs;
}

/**
 * For a file not found: the same path in the repository above the workspace, where it exists but
 * tools may not read it, with the configuration that would let them. Undefined otherwise, for a
 * path that leaves the repository (nothing is told of the rest of the machine) and for files that
 * may hold secrets (whose presence is not told). A link is reported as itself, never followed.
 */
export function outsideRepositoryHint(ws: Workspace, given: string): string | undefined {
  if (path.isAbsolute(given) || given.includes("\0") || isFileUrl(given)) return undefined;
  const repo = repositoryAbove(ws.root);
  if (!repo) return undefined;
  for (const dir of foldersUp(path.dirname(ws.root), repo)) {
    const candidate = path.resolve(dir, given);
    const inRepo = path.relative(repo, candidate);
    if (!Workspace.isInside(repo, candidate) || isSensitivePath(inRepo)) return undefined;
    if (ws.rootOf(candidate) || !lstatOrUndefined(candidate)) continue;
    return (
      ` The repository this workspace is in has ${inRepo}, outside the workspace; ` +
      `tools read it once the configuration lets them (tackle.config.json: "roots": [{ "path": "${path.relative(ws.root, repo)}" }]).`
    );
  }
  return undefined;
}

function existing(ws: Workspace, candidate: string, accept: (c: ResolvedPath) => boolean = () => true): ResolvedPath | undefined {
  try {
    const resolved = ws.resolveSync(candidate);
    return accept(resolved) && statOrUndefined(resolved.absolute) ? resolved : undefined;
  } catch {
    // a candidate outside what tools may read is simply not a candidate
    return undefined;
  }
}

/** The current directory and its parents, while inside the workspace and below its root. */
function belowRoot(root: string): string[] {
  let cwd: string;
  try {
    // getcwd(3), which process.cwd() calls, already answers with symlinks resolved.
    cwd = process.cwd();
  } catch {
    return [];
  }
  return foldersUp(cwd, root).filter((dir) => dir !== root);
}

/** The folders above the workspace root up to its repository's root; none when it is not inside a repository. */
function aboveRoot(root: string): string[] {
  const repo = repositoryAbove(root);
  return repo ? foldersUp(path.dirname(root), repo) : [];
}

/** The nearest folder above `root` that holds a `.git`, unless `root` holds one itself. */
function repositoryAbove(root: string): string | undefined {
  if (existsSync(path.join(root, ".git"))) return undefined;
  for (let dir = path.dirname(root); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, ".git"))) return dir;
    if (dir === path.dirname(dir)) return undefined;
  }
}
