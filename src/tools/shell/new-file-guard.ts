import { existsSync, lstatSync, renameSync } from "node:fs";
import path from "node:path";
import { CONFIG_FILES, hasTackleKeys } from "../../config/config.js";
import { ownFolder, realBuildCacheDir, tackleFolders } from "../../workspace/own-folders.js";
import { foldersUp, pathBelow } from "../../workspace/path-below.js";
import { entryExists } from "../../workspace/stat.js";

/*
 * The workspace sandbox binds read-only what must not change under a command (tackle's
 * configuration; for a call only the mode approved, the files that are code), but a bind needs
 * a file to sit on: a command may create one where none was. The next tackle start would take a
 * created tackle.config.json for the person's, and run a created MCP server script or Makefile
 * behind a rule. So such a file that appears while the command runs is moved aside, and the
 * model told.
 */

/** Files that make programs run when a rule allows `make`, `npm test`, `git`: at the root and along the cwd. */
const CODE_NAMES = [
  "Makefile",
  "makefile",
  "GNUmakefile",
  "justfile",
  ".justfile",
  "package.json",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pnpmfile.cjs",
  "pnpm-workspace.yaml",
  ".gitattributes",
  ".gitmodules",
  ".lfsconfig",
  ".envrc",
  ".husky",
  "node_modules/.bin",
];

/** tackle's configuration as seen from `cwd`: the config files up the folders, and `.tackle`. */
export function configEntries(root: string, cwd: string): string[] {
  return [path.join(root, ".tackle"), ...foldersUp(cwd, root).flatMap((dir) => CONFIG_FILES.map((name) => path.join(dir, name)))];
}

/**
 * Files that are code as seen from `cwd`, with those the configuration runs and, when the workspace
 * holds it, the compiled code tackle's build keeps beside the command, which tackle runs (absolute).
 * Outside the workspace a command cannot write it, and it is not ours to move aside.
 */
export function codeEntries(root: string, cwd: string, configured: readonly string[]): string[] {
  const named = foldersUp(cwd, root).flatMap((dir) => CODE_NAMES.map((name) => path.join(dir, name)));
  const built = realBuildCacheDir();
  return [...new Set([...named, ...configured, ...(pathBelow(root, built) !== undefined ? [built] : [])])];
}

/**
 * tackle's own folders the command can reach to move (see inTackleFolder): those below one of the
 * `writable` places (the workspace and any writable roots the configuration adds), each made first
 * where it is missing, so the sandbox hides it rather than letting a command make it. A command may
 * still take one away with a folder above it; what it puts in its place, tackle would trust as its
 * own (it belongs to the same user), so {@link watchNewFiles} moves that aside. The build's code
 * cache only when a person did not approve the command: their `npm ci` may put a new build there.
 */
export function ownFoldersHeld(writable: readonly string[], approved: boolean): string[] {
  const reachable = (dir: string) => writable.some((place) => dir !== place && pathBelow(place, dir) !== undefined);
  const home = tackleFolders().filter(reachable);
  for (const dir of home) ownFolder(dir);
  const built = realBuildCacheDir();
  return !approved && reachable(built) && entryExists(built) ? [...home, built] : home;
}

/**
 * Notes which of `config` and `code` (absolute paths) are missing before a command runs, and what
 * each of tackle's `own` folders is; the function it returns moves aside those the command created,
 * and any own folder it replaced, and says so (undefined when none). A config.json without
 * tackle's keys is another program's, and stays.
 */
export function watchNewFiles(
  root: string,
  entries: { config: readonly string[]; code: readonly string[]; own?: readonly string[] },
): () => string | undefined {
  const config = entries.config.filter((p) => !entryExists(p));
  const code = entries.code.filter((p) => !entryExists(p));
  const own = (entries.own ?? []).flatMap((p) => {
    const was = identity(p);
    return was === undefined ? [] : [{ p, was }];
  });
  const moveAside = (list: readonly string[]) =>
    list.flatMap((p) => {
      if (!entryExists(p) || (path.basename(p) === "config.json" && !hasTackleKeys(p))) return [];
      let target = `${p}.refused`;
      for (let i = 2; existsSync(target); i++) target = `${p}.refused-${i}`;
      renameSync(p, target);
      return [`${path.relative(root, p)} → ${path.relative(root, target)}`];
    });
  return () => {
    const notes: string[] = [];
    const movedConfig = moveAside(config);
    if (movedConfig.length) notes.push(`tackle's configuration, which only a person may write: ${movedConfig.join(", ")}`);
    const movedCode = moveAside(code);
    if (movedCode.length) notes.push(`files that are code, which need a person's approval: ${movedCode.join(", ")}`);
    const replaced = own.filter(({ p, was }) => {
      const now = identity(p);
      return now !== undefined && now !== was;
    });
    const movedOwn = moveAside(replaced.map(({ p }) => p));
    if (movedOwn.length) notes.push(`a folder in place of tackle's own, which no command may replace: ${movedOwn.join(", ")}`);
    if (!notes.length) return undefined;
    return `[The command created ${notes.join("; and ")}. They were moved aside; tell the person if they are meant to be used.]`;
  };
}

/** Which file or folder is at `p` (device and inode, not following a link); undefined when nothing is. */
function identity(p: string): string | undefined {
  const st = lstatSync(p, { throwIfNoEntry: false });
  return st && `${st.dev}:${st.ino}`;
}
