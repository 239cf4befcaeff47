import type { Dirent } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../../core/errors.js";
import { IGNORE_FILE_NAMES, isIgnored, makeLevel, type IgnoreLevel } from "./gitignore.js";

/** How many directories are read at once: enough to keep the thread pool busy, no more. */
const CONCURRENCY = 16;

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch {
    return undefined;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * The ignore levels of every ancestor of `dir` (not `dir` itself), deepest first — what ripgrep
 * reads above a path it is given. Only ignore rules are read there, never anything else.
 */
export async function ancestorLevels(dir: string): Promise<IgnoreLevel[]> {
  const levels: IgnoreLevel[] = [];
  let current = path.dirname(dir);
  let previous = dir;
  while (current !== previous) {
    const [rg, dot, git, hasGit] = await Promise.all([
      readIfPresent(path.join(current, ".rgignore")),
      readIfPresent(path.join(current, ".ignore")),
      readIfPresent(path.join(current, ".gitignore")),
      exists(path.join(current, ".git")),
    ]);
    const level = makeLevel(current, { ".rgignore": rg, ".ignore": dot, ".gitignore": git }, hasGit);
    if (level) levels.push(level);
    previous = current;
    current = path.dirname(current);
  }
  return levels;
}

export interface WalkOptions {
  signal: AbortSignal;
  /** Called for every file that is not ignored, with its absolute path. */
  onFile: (absolute: string) => void;
}

/**
 * Lists the files under `root` (an absolute, real directory) the way `rg --files` with tackle's
 * flags does: hidden files included, `.git` skipped, .gitignore / .ignore / .rgignore honoured
 * (from the ancestors of `root` too), symbolic links and special files not followed or listed.
 */
export async function walkFiles(root: string, options: WalkOptions): Promise<void> {
  const { signal, onFile } = options;
  const base = await ancestorLevels(root);
  const queue: Array<{ dir: string; levels: readonly IgnoreLevel[] }> = [{ dir: root, levels: base }];
  let active = 0;
  let failure: unknown;

  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      if (failure !== undefined) return;
      if (signal.aborted) {
        failure = new ToolError("CANCELLED", "The search was cancelled.");
        reject(failure);
        return;
      }
      while (active < CONCURRENCY && queue.length > 0) {
        const next = queue.pop()!;
        active++;
        visit(next.dir, next.levels).then(
          () => {
            active--;
            if (queue.length === 0 && active === 0) resolve();
            else pump();
          },
          (err: unknown) => {
            failure = err;
            reject(err);
          },
        );
      }
      if (queue.length === 0 && active === 0) resolve();
    };

    const visit = async (dir: string, inherited: readonly IgnoreLevel[]) => {
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        // A directory that vanished or cannot be read is skipped, as ripgrep does.
        if (dir === root) throw err;
        return;
      }
      let levels = inherited;
      let hasGit = false;
      let hasIgnoreFile = false;
      for (const e of entries) {
        if (e.name === ".git") hasGit = true;
        else if ((IGNORE_FILE_NAMES as readonly string[]).includes(e.name)) hasIgnoreFile = true;
      }
      if (hasIgnoreFile || hasGit) {
        const [rg, dot, git] = hasIgnoreFile
          ? await Promise.all(IGNORE_FILE_NAMES.map((n) => readIfPresent(path.join(dir, n))))
          : [undefined, undefined, undefined];
        const level = makeLevel(dir, { ".rgignore": rg, ".ignore": dot, ".gitignore": git }, hasGit);
        if (level) levels = [level, ...inherited];
      }
      const prefix = dir.endsWith("/") ? dir : `${dir}/`;
      for (const e of entries) {
        if (e.name === ".git") continue;
        const absolute = prefix + e.name;
        let isDir = e.isDirectory();
        let isFile = e.isFile();
        if (!isDir && !isFile && !e.isSymbolicLink() && !e.isFIFO() && !e.isSocket() && !e.isBlockDevice() && !e.isCharacterDevice()) {
          // The file system did not say (DT_UNKNOWN): ask, without following links.
          try {
            const st = await lstat(absolute);
            isDir = st.isDirectory();
            isFile = st.isFile();
          } catch {
            continue;
          }
        }
        if (isDir) {
          if (!isIgnored(levels, absolute, true)) queue.push({ dir: absolute, levels });
        } else if (isFile) {
          if (!isIgnored(levels, absolute, false)) onFile(absolute);
        }
      }
    };

    pump();
  });
}
