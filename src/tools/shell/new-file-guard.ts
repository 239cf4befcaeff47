import { existsSync, lstatSync, opendirSync, readdirSync, realpathSync, renameSync } from "node:fs";
import path from "node:path";
import { CONFIG_FILES, DOTENV_FILE, hasTackleKeys } from "../../config/config.js";
import { ownFolder, realOwnBuild, tackleFolders } from "../../workspace/own-folders.js";
import { foldersUp, pathBelow } from "../../workspace/path-below.js";
import { entryExists } from "../../workspace/stat.js";
import { codeNames } from "../../workspace/protected.js";

/*
 * The workspace sandbox binds read-only what must not change under a command (tackle's
 * configuration; for a call only the mode approved, the files that are code), but a bind needs
 * a file to sit on: a command may create one where none was, or rename a folder above one (the
 * bind goes with it) and make it again. The next tackle start would take a created
 * tackle.config.json for the person's, and run a created MCP server script or Makefile behind a
 * rule. So such a file that appears while the command runs is moved aside, and the model told.
 */

/**
 * tackle's configuration as seen from `cwd`: the config files up the folders, the `.env` beside each
 * (tackle started there reads it for the secrets its configuration names), and `.tackle`.
 */
export function configEntries(root: string, cwd: string): string[] {
  return [
    path.join(root, ".tackle"),
    ...foldersUp(cwd, root).flatMap((dir) => [...CONFIG_FILES, DOTENV_FILE].map((name) => path.join(dir, name))),
  ];
}

/**
 * Of {@link configEntries}, those below the top of the workspace that exist and are tackle's (a
 * config.json with none of its keys is another program's): read-only to the command, as the top's
 * are (sandbox/host-view.ts). tackle started in that folder would take one.
 */
export function configHeld(root: string, entries: readonly string[]): string[] {
  return entries.filter((p) => path.dirname(p) !== root && entryExists(p) && (path.basename(p) !== "config.json" || hasTackleKeys(p)));
}

/** The files that are code a command could reach by name, as they were before it ran (see {@link codeEntries}). */
export interface CodeEntries {
  /** The workspace they are in. */
  readonly root: string;
  /**
   * Those that exist (absolute): bound read-only, each with the folders above it (see {@link lineage}),
   * so one put back after a folder above was renamed is found.
   */
  readonly existing: ReadonlyMap<string, string>;
  /** Named ones that are missing (absolute): a command that makes one has it moved aside. */
  readonly missing: readonly string[];
  /** Each folder looked in, with its entries' names. */
  readonly folders: ReadonlyMap<string, ReadonlySet<string>>;
  /** What each file that is code found anywhere before the command was (see {@link identity}): one only moved is not new. */
  readonly seen: ReadonlySet<string>;
}

/** What in a repository's `.git` makes git run programs (hooks, and config and attributes that name them). */
const GIT_PARTS = ["hooks", "config", "info"];

let byFirstName: Map<string, string[][]> | undefined;

/** {@link codeNames} by their first component, lower-cased: `.vscode` → [["tasks.json"], ["settings.json"], …]. */
function codeNamesByFirst(): Map<string, string[][]> {
  if (byFirstName) return byFirstName;
  byFirstName = new Map();
  for (const name of codeNames()) {
    const [first, ...rest] = name.split("/");
    const key = first!.toLowerCase();
    byFirstName.set(key, [...(byFirstName.get(key) ?? []), rest]);
  }
  return byFirstName;
}

/** The code names an entry of a folder starts: the paths they make below it (absolute). */
function codePathsFrom(dir: string, entry: string): string[] {
  return (codeNamesByFirst().get(entry.toLowerCase()) ?? []).map((rest) => path.join(dir, entry, ...rest));
}

/** Entries of a folder read to find files that are code by any case; past them, each name is asked after instead. */
const MAX_LISTED = 5_000;

/** Bytes of a folder below which it is read whole: its entries are surely fewer than {@link MAX_LISTED}. */
const SMALL_FOLDER_BYTES = 64 * 1024;

/** A folder's entries' names; undefined past {@link MAX_LISTED} (a data folder at the top of a workspace). */
function namesIn(dir: string): Set<string> | undefined {
  const names = new Set<string>();
  let handle;
  try {
    // Most folders are small: one read of them all is cheaper than a handle read entry by entry.
    if ((lstatSync(dir, { throwIfNoEntry: false })?.size ?? 0) <= SMALL_FOLDER_BYTES) return new Set(readdirSync(dir));
    handle = opendirSync(dir, { bufferSize: 256 });
  } catch {
    return names;
  }
  try {
    for (let entry = handle.readSync(); entry; entry = handle.readSync()) {
      if (names.size >= MAX_LISTED) return undefined;
      names.add(entry.name);
    }
  } catch {
    // a folder that went away while read: what was read stands
  } finally {
    handle.closeSync();
  }
  return names;
}

/**
 * Files that are code as seen from `cwd` (see workspace/code-kinds.ts), at the top of the workspace
 * and in each folder down to `cwd`, matched in any case; with those the configuration runs and,
 * when the workspace holds it, the compiled code tackle's build keeps beside the command, which
 * tackle runs. Each folder is read once rather than each name asked after: most are missing.
 * Outside the workspace a command cannot write it, and it is not ours to move aside.
 */
export function codeEntries(root: string, cwd: string, configured: readonly string[], anywhere: readonly string[] = []): CodeEntries {
  const existing = new Map<string, string>();
  const missing: string[] = [];
  const folders = new Map<string, ReadonlySet<string>>();
  const note = (p: string) => {
    if (identity(p) === undefined) missing.push(p);
    else existing.set(p, lineage(root, p));
  };
  for (const dir of foldersUp(cwd, root)) {
    const names = namesIn(dir);
    if (names) {
      folders.set(dir, names);
      for (const entry of names) for (const p of codePathsFrom(dir, entry)) note(p);
    } else {
      for (const name of codeNames()) note(path.join(dir, name));
    }
    // A repository a command makes (`git init`, then a hook) would run its hooks at the next
    // approved commit. A nested one's parts that run programs are read-only here; git must still
    // write its objects and refs. The workspace's own are protected in every mode (host-view.ts).
    if (!(names ? names.has(".git") : entryExists(path.join(dir, ".git")))) missing.push(path.join(dir, ".git"));
    else if (dir !== root) for (const part of GIT_PARTS) note(path.join(dir, ".git", part));
  }
  // tackle's own build, when the workspace holds it: the program and its cache, which the next start runs.
  const built = realOwnBuild();
  for (const p of new Set([...configured, ...(pathBelow(root, built) !== undefined ? [built] : [])])) if (!existing.has(p)) note(p);
  // In every other folder, as the workspace's search found them: read-only too. A repository's
  // own files but those that run programs stay writable, as above.
  const seen = new Set<string>();
  for (const p of topmost(anywhere)) {
    const id = identity(p);
    if (id !== undefined) seen.add(id);
    if (path.basename(p) === ".git") for (const part of GIT_PARTS) note(path.join(p, part));
    else if (!existing.has(p)) note(p);
  }
  return { root, existing, missing, folders, seen };
}

/** Paths without those inside another of them (`.husky`, not `.husky/pre-commit` too). */
function topmost(paths: readonly string[]): string[] {
  const all = new Set(paths);
  return paths.filter((p) => {
    for (let dir = path.dirname(p); dir !== path.dirname(dir); dir = path.dirname(dir)) if (all.has(dir)) return false;
    return true;
  });
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
  const built = realOwnBuild();
  return !approved && reachable(built) && entryExists(built) ? [...home, built] : home;
}

/**
 * Notes, before a command runs, which of `config` (absolute paths) exist and what the folders above
 * each are, and what each of tackle's `own` folders is. The function it returns moves aside the
 * configuration and the files that are code (`code`) the command made where none was or put back
 * under a renamed folder, and any own folder it replaced, and says so (undefined when none). Only
 * what really is in the workspace is moved, and a config.json without tackle's keys is another
 * program's, and stays.
 */
export function watchNewFiles(
  root: string,
  entries: {
    config: readonly string[];
    code?: CodeEntries | undefined;
    own?: readonly string[];
    /** tackle's configuration and the files that are code anywhere in the workspace, searched again after the command (workspaceScan). */
    rescan?: () => Promise<{ config: string[]; code: string[] }>;
  },
): () => Promise<string | undefined> {
  const config = entries.config.map((p) => ({ p, was: identity(p), above: lineage(root, p) }));
  const configIds = new Set(config.flatMap(({ was }) => (was === undefined ? [] : [was])));
  const own = (entries.own ?? []).flatMap((p) => {
    const was = identity(p);
    return was === undefined ? [] : [{ p, was }];
  });
  const realRoot = realOrUndefined(root) ?? root;
  // `inWorkspace`: the entry must really be in the workspace. One seen through a link the command
  // made to a folder outside (`.vscode` → the person's own settings) is not the command's (it could
  // not write there), and tackle touches nothing outside. tackle's own folders are its own, wherever.
  const moveAside = (list: readonly string[], inWorkspace = true) =>
    list.flatMap((p) => {
      if (!entryExists(p) || (path.basename(p) === "config.json" && !hasTackleKeys(p))) return [];
      const parent = inWorkspace ? realOrUndefined(path.dirname(p)) : undefined;
      if (inWorkspace && (parent === undefined || pathBelow(realRoot, parent) === undefined)) return [];
      let target = `${p}.refused`;
      for (let i = 2; existsSync(target); i++) target = `${p}.refused-${i}`;
      renameSync(p, target);
      return [`${path.relative(root, p)} → ${path.relative(root, target)}`];
    });
  return async () => {
    const notes: string[] = [];
    // Made where none was, or put in place of one after a folder above was renamed; or made in any
    // other folder (one that was there, and was only moved, stays).
    const named = new Set(entries.config);
    const again = await entries.rescan?.();
    const elsewhere = (again?.config ?? []).filter((p) => {
      const id = identity(p);
      return !named.has(p) && id !== undefined && !configIds.has(id);
    });
    const movedConfig = moveAside([
      ...config
        .filter(({ p, was, above }) => (was === undefined ? identity(p) !== undefined : lineage(root, p) !== above))
        .map(({ p }) => p),
      ...elsewhere,
    ]);
    if (movedConfig.length) notes.push(`tackle's configuration, which only a person may write: ${movedConfig.join(", ")}`);
    const movedCode = entries.code ? moveAside(newCode(entries.code, again?.code ?? [])) : [];
    if (movedCode.length) notes.push(`files that are code, which need a person's approval: ${movedCode.join(", ")}`);
    const replaced = own.filter(({ p, was }) => {
      const now = identity(p);
      return now !== undefined && now !== was;
    });
    const movedOwn = moveAside(
      replaced.map(({ p }) => p),
      false,
    );
    if (movedOwn.length) notes.push(`a folder in place of tackle's own, which no command may replace: ${movedOwn.join(", ")}`);
    if (!notes.length) return undefined;
    return `[The command created ${notes.join("; and ")}. They were moved aside; tell the person if they are meant to be used.]`;
  };
}

/**
 * The files that are code a command made: where none was, or in place of one that was (absolute);
 * `anywhere`, those the workspace's search finds after it, in any folder.
 */
function newCode(code: CodeEntries, anywhere: readonly string[]): string[] {
  const found = new Set<string>();
  for (const p of topmost(anywhere)) {
    const id = identity(p);
    if (id !== undefined && !code.seen.has(id) && !code.existing.has(p) && !code.missing.includes(p)) found.add(p);
  }
  for (const [p, above] of code.existing) if (lineage(code.root, p) !== above && entryExists(p)) found.add(p);
  for (const p of code.missing) if (entryExists(p)) found.add(p);
  for (const [dir, before] of code.folders) {
    const after = namesIn(dir);
    // Grown past reading: each name is asked after, in the case it is written.
    const fresh = after
      ? [...after].filter((entry) => !before.has(entry)).flatMap((entry) => codePathsFrom(dir, entry))
      : codeNames().map((n) => path.join(dir, n));
    for (const p of fresh) if (!code.existing.has(p) && entryExists(p)) found.add(p);
  }
  // A folder that is code goes aside whole, what it holds with it.
  return topmost([...found]);
}

/**
 * What each folder between `root` and `p` is (see {@link identity}): a read-only bind moves with a
 * folder renamed above it, so a changed one means what is at `p` now was put there. The entry itself
 * is not compared: a person's editor saving it while a long job runs makes a new file, which is theirs.
 */
function lineage(root: string, p: string): string {
  const below = pathBelow(root, path.dirname(p));
  if (!below) return "";
  let dir = root;
  return below
    .split("/")
    .map((part) => identity((dir = path.join(dir, part))) ?? "-")
    .join("/");
}

function realOrUndefined(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/**
 * Which file or folder is at `p` (device and inode, not following a link); undefined when nothing
 * is, or when it cannot be asked (a file where a folder on the way should be: `.vscode` a file, for
 * `.vscode/tasks.json`; a folder that cannot be searched).
 */
function identity(p: string): string | undefined {
  try {
    const st = lstatSync(p, { throwIfNoEntry: false });
    return st && `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}
