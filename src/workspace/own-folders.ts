import {
  existsSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/*
 * tackle's own folders in the user's home: the compiled-code cache (whose entries the next start
 * runs) and the state it keeps between calls. A workspace at or above the home folder holds them;
 * no tool reads or writes them, and sandboxes do not see them, so nothing a model does can plant
 * code that tackle itself runs later. The same holds for the compiled code tackle's build left
 * beside the command (see inTackleFolder).
 */

/** Where the compiled-code cache lives: `$XDG_CACHE_HOME/tackle`, or `~/.cache/tackle`. */
export function tackleCacheDir(): string {
  return path.join(process.env["XDG_CACHE_HOME"] || path.join(os.homedir(), ".cache"), "tackle");
}

/**
 * Where the build leaves compiled code for the command's first runs: `code-cache` beside the
 * bundled command (`dist/cli`), trusted as that command is (src/cli/code-cache.ts).
 */
export function buildCacheDir(bundle = BUNDLE): string {
  return path.join(path.dirname(bundle), "code-cache");
}
const BUNDLE = fileURLToPath(new URL("../cli/tackle.cjs", import.meta.url));

/**
 * The build tackle runs from (`dist`, which holds the bundle, its worker scripts and the tools'
 * descriptions), when it runs from one: a workspace holding tackle's installation (its own
 * repository, a project with tackle in node_modules) holds the program the person starts next.
 */
export function programDir(bundle = BUNDLE): string | undefined {
  return existsSync(bundle) ? path.dirname(path.dirname(bundle)) : undefined;
}

/**
 * What `TACKLE_CODE_CACHE` asks of the command line's caches: `off` (`0`, `false`, `off`): none;
 * `own`: only what this user's runs kept in {@link tackleCacheDir}, not the build's; `build`: a run
 * of the build writing {@link buildCacheDir}; otherwise both kinds, the user's first.
 */
export function codeCacheSetting(): "off" | "own" | "build" | "on" {
  const setting = process.env["TACKLE_CODE_CACHE"];
  if (setting === "0" || setting === "false" || setting === "off") return "off";
  return setting === "own" || setting === "build" ? setting : "on";
}

/** Where tackle keeps state between calls: `$XDG_STATE_HOME/tackle`, or `~/.local/state/tackle`. */
export function tackleStateDir(): string {
  return path.join(process.env["XDG_STATE_HOME"] || path.join(os.homedir(), ".local", "state"), "tackle");
}

/** Where tackle keeps what the user set up and signed into (MCP servers' OAuth tokens): `$XDG_CONFIG_HOME/tackle`, or `~/.config/tackle`. */
export function tackleConfigDir(): string {
  return path.join(process.env["XDG_CONFIG_HOME"] || path.join(os.homedir(), ".config"), "tackle");
}

let known: { key: string; folders: string[]; guarded: string[] } | undefined;

/**
 * tackle's own folders, worked out once per set of the variables that place them (every path a
 * tool resolves is checked against them) until {@link forgetTackleFolders}: their real places,
 * where they are or where making them would put them (see {@link realPlace}), and, to guard, those
 * with the names they go by before links are followed and the build's code cache.
 */
function places(): { folders: string[]; guarded: string[] } {
  const key = `${process.env["XDG_CACHE_HOME"] ?? ""}\0${process.env["XDG_STATE_HOME"] ?? ""}\0${process.env["XDG_CONFIG_HOME"] ?? ""}\0${os.homedir()}`;
  if (known?.key === key) return known;
  const written = [tackleCacheDir(), tackleStateDir(), tackleConfigDir()];
  const folders = written.map(realPlace);
  const build = buildCacheDir();
  // A change judged by the name it makes (run_code's, of a link above a folder) is held to the names.
  const program = [realProgramDir(), programDir()].filter((dir): dir is string => dir !== undefined);
  const guarded = [...new Set([...folders, realBuildCacheDir(), ...written, build, ...program])];
  known = { key, folders, guarded };
  return known;
}

/** tackle's own folders in the home folder as real paths, for comparing with resolved paths. */
export function tackleFolders(): string[] {
  return places().folders;
}

/**
 * Works tackle's folders out afresh at the next question: after a command ran that may
 * have re-pointed a link above one, whose folder tackle would then make, and trust, elsewhere.
 */
export function forgetTackleFolders(): void {
  known = undefined;
}

/**
 * Whether `absolute` is one of tackle's own folders or inside one, the build's code cache among
 * them: a workspace holding tackle's build holds it, and what a tool planted there tackle would
 * run. (Sandboxes see that one, read-only unless a person approved the command: it holds no
 * secret, and hiding it would keep a person's `npm ci` from replacing tackle.)
 */
export function inTackleFolder(absolute: string): boolean {
  return places().guarded.some((dir) => absolute === dir || absolute.startsWith(`${dir}${path.sep}`));
}

/**
 * Whether one of tackle's own folders (as {@link inTackleFolder} counts them) lies below `absolute`:
 * moving, replacing or deleting `absolute` takes that folder along, and a folder a tool put in its
 * place would be trusted as tackle's own (it belongs to the same user).
 */
export function holdsTackleFolder(absolute: string): boolean {
  const prefix = absolute.endsWith(path.sep) ? absolute : `${absolute}${path.sep}`;
  return places().guarded.some((dir) => dir.startsWith(prefix));
}

let realBuild: string | undefined;
/** {@link buildCacheDir} as a real path (see {@link realPlace}), worked out once. */
export function realBuildCacheDir(): string {
  return (realBuild ??= realPlace(buildCacheDir()));
}

let realProgram: { dir: string | undefined } | undefined;
/** {@link programDir} as a real path, worked out once; undefined when tackle does not run from a build. */
function realProgramDir(): string | undefined {
  if (!realProgram) {
    const dir = programDir();
    realProgram = { dir: dir === undefined ? undefined : realPlace(dir) };
  }
  return realProgram.dir;
}

/**
 * tackle's own build as a real path, what the next start runs: the program's folder when tackle
 * runs from a build (its code cache inside), else the folder the build's code cache would be in.
 */
export function realOwnBuild(): string {
  return realProgramDir() ?? realBuildCacheDir();
}

/**
 * Where the folder `dir` really is, or for one not made yet, where making it would put it: the real
 * path of the nearest folder above that exists, the rest appended. Compared as written instead, a
 * `~/.cache` linking elsewhere in the workspace let a tool write `.cache/tackle/key` before tackle
 * made the folder, and tackle then trusted the key as its own.
 */
export function realPlace(dir: string): string {
  for (let base = dir, rest = ""; ; rest = path.join(path.basename(base), rest), base = path.dirname(base)) {
    try {
      return path.join(realpathSync(base), rest);
    } catch {
      // not there (or not searchable): look further up
    }
    if (path.dirname(base) === base) return dir;
  }
}

/**
 * Makes `dir` (missing folders 0700) and says whether it is this user's own folder that no one
 * else can write to (nor read, with `secret`): what tackle keeps there can then be neither planted
 * nor, when secret, read by another user of the machine.
 */
export function ownFolder(dir: string, secret = false): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    const uid = process.getuid?.();
    return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & (secret ? 0o077 : 0o022)) === 0;
  } catch {
    return false;
  }
}

/**
 * A regular file of this user (or of the user `owner`) that nobody else may write, read without
 * following a link or blocking on a FIFO.
 */
export function readOwnFile(file: string, maxBytes: number, owner = process.getuid?.()): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || (owner !== undefined && st.uid !== owner) || (st.mode & 0o022) !== 0 || st.size > maxBytes) return undefined;
    const buffer = Buffer.alloc(st.size);
    let offset = 0;
    while (offset < st.size) {
      const read = readSync(fd, buffer, offset, st.size - offset, offset);
      if (read === 0) break;
      offset += read;
    }
    return offset === st.size ? buffer : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** A file of the user's cache folder ({@link tackleCacheDir}) read as {@link readOwnFile} does, when the folder is this user's alone to write. */
export function readCacheFile(name: string, maxBytes: number): Buffer | undefined {
  const dir = tackleCacheDir();
  return ownFolder(dir) ? readOwnFile(path.join(dir, name), maxBytes) : undefined;
}

/** Replaces a file of the user's cache folder as {@link replaceOwnFile} does; nothing where that folder is not this user's alone. */
export function writeCacheFile(name: string, data: string | Uint8Array): void {
  const dir = tackleCacheDir();
  if (ownFolder(dir)) replaceOwnFile(path.join(dir, name), data);
}

/**
 * A file of the build's cache folder ({@link buildCacheDir}), when the file and the folder belong
 * to the owner of the bundled command and nobody else may write them: trusted as that command is.
 */
export function readBuildFile(name: string, maxBytes: number, bundle = BUNDLE): Buffer | undefined {
  const dir = buildCacheDir(bundle);
  try {
    const owner = statSync(bundle).uid;
    const folder = lstatSync(dir);
    if (!folder.isDirectory() || folder.uid !== owner || (folder.mode & 0o022) !== 0) return undefined;
    return readOwnFile(path.join(dir, name), maxBytes, owner);
  } catch {
    return undefined;
  }
}

/**
 * Replaces a file of the build's cache folder whole (see {@link replaceOwnFile}), readable by every
 * user who runs the command and writable by its owner alone.
 */
export function writeBuildFile(name: string, data: string | Uint8Array, bundle = BUNDLE): void {
  const dir = buildCacheDir(bundle);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  replaceOwnFile(path.join(dir, name), data, 0o644);
}

/**
 * Replaces `file` whole with a file only this user may read or write (or, with `mode`, as that
 * says): written under a temporary name first (made new, never through a link found there), then
 * renamed over it, so a reader sees the old content or the new. Throws when it cannot, leaving no
 * temporary file behind.
 */
export function replaceOwnFile(file: string, data: string | Uint8Array, mode = 0o600): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    try {
      writeFileSync(temporary, data, { mode, flag: "wx" });
    } catch (err) {
      // Left by a process that died with this pid: it is ours to remove.
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      rmSync(temporary, { force: true });
      writeFileSync(temporary, data, { mode, flag: "wx" });
    }
    renameSync(temporary, file);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
}
