import path from "node:path";
import { statSync } from "node:fs";

/**
 * Where `name` would be run from, as execvp finds it: a name with a slash is taken as it is
 * (relative to `cwd`), any other is looked up in `dirs` (default the directories of PATH).
 */
export function findExecutable(name: string, options: { cwd?: string; dirs?: readonly string[] } = {}): string | undefined {
  if (name.includes("/")) {
    const full = path.resolve(options.cwd ?? process.cwd(), name);
    return isExecutableFile(full) ? full : undefined;
  }
  const dirs = options.dirs ?? (process.env.PATH ?? "").split(path.delimiter);
  for (const dir of dirs) {
    // An empty or relative entry is relative to wherever the lookup runs (see safe-path.ts).
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** A regular file someone may execute. */
export function isExecutableFile(p: string): boolean {
  try {
    const st = statSync(p);
    return st.isFile() && (st.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}
