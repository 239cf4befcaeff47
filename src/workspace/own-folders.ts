import {
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
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";

/*
 * tackle's own folders in the user's home: the compiled-code cache (whose entries the next start
 * runs) and the state it keeps between calls. A workspace at or above the home folder holds them;
 * no tool reads or writes them, and sandboxes do not see them, so nothing a model does can plant
 * code that tackle itself runs later.
 */

/** Where the compiled-code cache lives: `$XDG_CACHE_HOME/tackle`, or `~/.cache/tackle`. */
export function tackleCacheDir(): string {
  return path.join(process.env["XDG_CACHE_HOME"] || path.join(os.homedir(), ".cache"), "tackle");
}

/** Whether `TACKLE_CODE_CACHE=0` (or `false`, `off`) turns off what the command line keeps in {@link tackleCacheDir}. */
export function cacheTurnedOff(): boolean {
  const setting = process.env["TACKLE_CODE_CACHE"];
  return setting === "0" || setting === "false" || setting === "off";
}

/** Where tackle keeps state between calls: `$XDG_STATE_HOME/tackle`, or `~/.local/state/tackle`. */
export function tackleStateDir(): string {
  return path.join(process.env["XDG_STATE_HOME"] || path.join(os.homedir(), ".local", "state"), "tackle");
}

/** Where tackle keeps what the user set up and signed into (MCP servers' OAuth tokens): `$XDG_CONFIG_HOME/tackle`, or `~/.config/tackle`. */
export function tackleConfigDir(): string {
  return path.join(process.env["XDG_CONFIG_HOME"] || path.join(os.homedir(), ".config"), "tackle");
}

let known: { key: string; folders: string[] } | undefined;

/**
 * tackle's own folders as real paths (where they exist), for comparing with resolved paths. Every
 * path a tool resolves is checked against them, so they are worked out once per set of the
 * variables that place them, not on each call.
 */
export function tackleFolders(): string[] {
  const key = `${process.env["XDG_CACHE_HOME"] ?? ""}\0${process.env["XDG_STATE_HOME"] ?? ""}\0${process.env["XDG_CONFIG_HOME"] ?? ""}\0${os.homedir()}`;
  if (known?.key === key) return known.folders;
  // A folder not made yet counts by its path as written.
  const folders = [tackleCacheDir(), tackleStateDir(), tackleConfigDir()].map((dir) => {
    try {
      return realpathSync(dir);
    } catch {
      return dir;
    }
  });
  known = { key, folders };
  return folders;
}

/** Whether `absolute` (a real path) is one of tackle's own folders or inside one. */
export function inTackleFolder(absolute: string): boolean {
  return tackleFolders().some((dir) => absolute === dir || absolute.startsWith(`${dir}${path.sep}`));
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

/** A regular file of this user that nobody else may write, read without following a link or blocking on a FIFO. */
export function readOwnFile(file: string, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0 || st.size > maxBytes) return undefined;
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

/**
 * Replaces `file` whole with a file only this user may read or write: written under a temporary
 * name first (made new, never through a link found there), then renamed over it, so a reader sees
 * the old content or the new. Throws when it cannot, leaving no temporary file behind.
 */
export function replaceOwnFile(file: string, data: string | Uint8Array): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    try {
      writeFileSync(temporary, data, { mode: 0o600, flag: "wx" });
    } catch (err) {
      // Left by a process that died with this pid: it is ours to remove.
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      rmSync(temporary, { force: true });
      writeFileSync(temporary, data, { mode: 0o600, flag: "wx" });
    }
    renameSync(temporary, file);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
}
