import path from "node:path";
import { realPlace } from "./own-folders.js";
import { pathBelow } from "./path-below.js";

/**
 * For a workspace and a PATH entry outside it as written, where the entry lies in it when it
 * really is there (a link into it), as first found; and each workspace's own real place. Only the
 * person can re-point those (tools and commands write inside the workspace alone), and finding
 * them again for every command cost ~85 µs. Entries inside the workspace are looked at every time.
 */
const decided = new Map<string, string | undefined>();
const realRoots = new Map<string, string>();

/**
 * The workspace's folders on PATH (direnv's `PATH_add bin`, a project's `tools/` put first), relative
 * to `root` ("" for the workspace itself), each as where it really is. A program written there runs
 * in place of the system's when the person types its name, or when tackle starts git, ripgrep or a
 * server: what such a folder holds is code.
 */
export function workspaceFoldersOnPath(root: string, pathValue: string | undefined = process.env["PATH"]): string[] {
  let realRoot = realRoots.get(root);
  if (realRoot === undefined) realRoots.set(root, (realRoot = realPlace(root)));
  const found = new Set<string>();
  for (const entry of (pathValue ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(entry)) continue;
    const key = `${root}\0${entry}`;
    let below = decided.get(key);
    if (below === undefined && !decided.has(key)) {
      below = pathBelow(realRoot, realPlace(entry));
      if (pathBelow(root, entry) === undefined && pathBelow(realRoot, entry) === undefined) decided.set(key, below);
    }
    if (below !== undefined) found.add(below);
  }
  return [...found];
}
