import { lstatSync, readFileSync, statSync, type Dirent } from "node:fs";
import path from "node:path";
import { folderRules, IGNORE_FILE_NAMES, makeLevel, type IgnoreFileName, type IgnoreLevel, type LevelSource } from "./gitignore.js";
import { yielder } from "../yielder.js";
import { entryExists } from "../../workspace/stat.js";
import { readdirResolvedSync } from "../../workspace/no-follow.js";

/**
 * The text of an ignore file, or undefined when there is none. Most folders have none, so it asks
 * first without an exception: a failed read throws, and building that error costs ten times the
 * question.
 */
function readIfPresent(file: string): string | undefined {
  try {
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * The ignore levels of every ancestor of `dir` (not `dir` itself), deepest first — what ripgrep
 * reads above a path it is given. Only ignore rules are read there, never anything else.
 */
export function ancestorLevels(dir: string): IgnoreLevel[] {
  const levels: IgnoreLevel[] = [];
  let current = path.dirname(dir);
  let previous = dir;
  while (current !== previous) {
    const level = makeLevel(
      current,
      {
        ".rgignore": readIfPresent(path.join(current, ".rgignore")),
        ".ignore": readIfPresent(path.join(current, ".ignore")),
        ".gitignore": readIfPresent(path.join(current, ".gitignore")),
      },
      entryExists(path.join(current, ".git")),
    );
    if (level) levels.push(level);
    previous = current;
    current = path.dirname(current);
  }
  return levels;
}

/** A folder still to be read, with the ignore levels of the folders above it, deepest first. */
export interface Folder {
  dir: string;
  levels: readonly IgnoreLevel[];
}

/**
 * Reads one folder of a walk: hands each file the ignore rules keep to `onFile` (absolute path)
 * and each folder they keep to `onFolder`, with the levels that apply inside it. `.git` is
 * skipped; symbolic links and special files are neither followed nor listed. Returns the error
 * when the folder cannot be read (a walk skips such a folder, as ripgrep does, unless it is the root).
 */
export function readFolder(folder: Folder, onFile: (absolute: string) => void, onFolder: (folder: Folder) => void): Error | undefined {
  const { dir, levels: inherited } = folder;
  let entries: Dirent[];
  try {
    // The folder that was reached, not whatever its path names once a command swapped it for a link.
    entries = readdirResolvedSync(dir);
  } catch (err) {
    return err as Error;
  }
  let levels = inherited;
  let hasGit = false;
  let texts: LevelSource["texts"] | undefined;
  for (const e of entries) {
    if (e.name === ".git") hasGit = true;
    else if ((IGNORE_FILE_NAMES as readonly string[]).includes(e.name)) {
      // Only the ignore files the listing shows are read.
      (texts ??= {})[e.name as IgnoreFileName] = readIfPresent(path.join(dir, e.name));
    }
  }
  if (texts || hasGit) {
    const level = makeLevel(dir, texts ?? {}, hasGit);
    if (level) levels = [level, ...inherited];
  }
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  const ignored = folderRules(levels, dir);
  for (const e of entries) {
    if (e.name === ".git") continue;
    const absolute = prefix + e.name;
    let isDir = e.isDirectory();
    let isFile = e.isFile();
    if (!isDir && !isFile && !e.isSymbolicLink() && !e.isFIFO() && !e.isSocket() && !e.isBlockDevice() && !e.isCharacterDevice()) {
      // The file system did not say (DT_UNKNOWN): ask, without following links.
      try {
        const st = lstatSync(absolute);
        isDir = st.isDirectory();
        isFile = st.isFile();
      } catch {
        continue;
      }
    }
    if (isDir) {
      if (!ignored?.(e.name, true)) onFolder({ dir: absolute, levels });
    } else if (isFile) {
      if (!ignored?.(e.name, false)) onFile(absolute);
    }
  }
}

export interface WalkOptions {
  signal: AbortSignal;
  /** Called for every file that is not ignored, with its absolute path. */
  onFile: (absolute: string) => void;
}

/**
 * Lists the files under `root` (an absolute, real directory) the way `rg --files` with tackle's
 * flags does: hidden files included, `.git` skipped, .gitignore / .ignore / .rgignore honoured
 * (from the ancestors of `root` too), symbolic links and special files neither followed nor
 * listed. Directories are read synchronously in short slices (see {@link yielder}).
 */
export async function walkFiles(root: string, options: WalkOptions): Promise<void> {
  const { signal, onFile } = options;
  const pause = yielder(signal);
  const stack: Folder[] = [{ dir: root, levels: ancestorLevels(root) }];
  const onFolder = (folder: Folder) => void stack.push(folder);
  while (stack.length > 0) {
    const wait = pause();
    if (wait) await wait;
    const folder = stack.pop()!;
    const failed = readFolder(folder, onFile, onFolder);
    if (failed && folder.dir === root) throw failed;
  }
}
