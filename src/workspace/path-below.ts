import path from "node:path";

/** An absolute path with nothing to normalise: no "." or ".." segments, no doubled or trailing slash. */
function plain(p: string): boolean {
  // "/." also turns away names that merely start with a dot: they take the slower, general road.
  return p.startsWith("/") && !p.includes("/.") && !p.includes("//") && (p.length === 1 || !p.endsWith("/"));
}

/**
 * Where `target` lies below `root`: the relative path with "/" separators ("" for the root
 * itself), or undefined when it is outside (a sibling that only shares a prefix, `ws` vs
 * `ws-evil`, is outside). Real paths and `path.resolve`'s answers are compared as strings: every
 * file tool call asks this several times, and `path.relative` costs more than the rest of a small read.
 */
export function pathBelow(root: string, target: string): string | undefined {
  if (plain(root) && plain(target)) {
    if (target === root) return "";
    const prefix = root === "/" ? root : `${root}/`;
    return target.startsWith(prefix) ? target.slice(prefix.length) : undefined;
  }
  const rel = path.relative(root, target);
  // Only a whole ".." segment climbs out: "..foo" is a file inside that happens to start with dots.
  if (rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join("/");
}

/** `from` and each folder above it up to `to`, both included; none when `from` is not inside `to`. */
export function foldersUp(from: string, to: string): string[] {
  const dirs: string[] = [];
  for (let dir = from; pathBelow(to, dir) !== undefined; dir = path.dirname(dir)) {
    dirs.push(dir);
    if (dir === to) break;
  }
  return dirs;
}
