import path from "node:path";
import { realPlace } from "./own-folders.js";
import { pathBelow } from "./path-below.js";

/**
 * The workspace's folders on PATH (direnv's `PATH_add bin`, a project's `tools/` put first), relative
 * to `root` ("" for the workspace itself), each as where it really is. A program written there runs
 * in place of the system's when the person types its name, or when tackle starts git, ripgrep or a
 * server: what such a folder holds is code.
 */
export function workspaceFoldersOnPath(root: string, pathValue: string | undefined = process.env["PATH"]): string[] {
  const realRoot = realPlace(root);
  const found = new Set<string>();
  for (const entry of (pathValue ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(entry)) continue;
    const below = pathBelow(realRoot, realPlace(entry));
    if (below !== undefined) found.add(below);
  }
  return [...found];
}
