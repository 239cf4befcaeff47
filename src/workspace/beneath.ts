import { constants } from "node:fs";
import { mkdir, open, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../core/errors.js";

/** Linux names an open directory by `/proc/self/fd/N`: a path that no rename or symlink can redirect. */
const PROC_FD = process.platform === "linux" ? "/proc/self/fd" : undefined;

/**
 * An open handle on a directory, reached from `/` one component at a time, each opened with
 * O_NOFOLLOW: if anything on the way is (or is swapped for) a symlink, it fails instead of
 * following it out of the workspace. Files are then created and renamed through the handle
 * (`at(name)`), so the directory written is the one that was checked, whatever happens to its
 * path meanwhile. `dir` must be a real path (resolved, no symlinks).
 */
export interface DirectoryHandle {
  /** A path that names `name` inside the held directory, immune to the directory's path changing. */
  at(name: string): string;
  close(): Promise<void>;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

export async function openDirectoryBeneath(dir: string): Promise<DirectoryHandle> {
  if (!PROC_FD) return { at: (name) => path.join(dir, name), close: async () => {} };
  const held = await walkBeneath(dir, false);
  return { at: (name) => `${PROC_FD}/${held.handle.fd}/${name}`, close: () => held.handle.close() };
}

/**
 * `mkdir -p` for a resolved (real) path, one folder at a time through handles as
 * {@link openDirectoryBeneath} goes: a folder on the way that a concurrent command swaps for a
 * link is refused, not followed, so no folder is ever made outside. Returns the first folder made,
 * as mkdir's recursive form does.
 */
export async function mkdirBeneath(dir: string): Promise<string | undefined> {
  if (!PROC_FD) return mkdir(dir, { recursive: true });
  const held = await walkBeneath(dir, true);
  await held.handle.close();
  return held.made;
}

/** Opens `dir` from `/` a component at a time (O_NOFOLLOW), making the missing ones when `make`. */
async function walkBeneath(dir: string, make: boolean): Promise<{ handle: FileHandle; made?: string }> {
  let current: FileHandle = await open("/", DIR_FLAGS);
  let made: string | undefined;
  let sofar = "";
  try {
    for (const part of path.resolve(dir).split("/").filter(Boolean)) {
      sofar += `/${part}`;
      let next: FileHandle;
      try {
        next = await open(`${PROC_FD}/${current.fd}/${part}`, DIR_FLAGS);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ELOOP" || code === "ENOTDIR") {
          throw new ToolError(
            "INVALID_PATH",
            `${dir} changed while it was being written (a part of it became a link or a file); nothing was written. Check the folder and try again.`,
            { cause: err },
          );
        }
        if (code !== "ENOENT" || !make) throw err;
        // Made in the folder held, whatever its path names now; one made meanwhile is taken as it is.
        await mkdir(`${PROC_FD}/${current.fd}/${part}`).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== "EEXIST") throw e;
        });
        made ??= sofar;
        next = await open(`${PROC_FD}/${current.fd}/${part}`, DIR_FLAGS);
      }
      await current.close();
      current = next;
    }
  } catch (err) {
    await current.close().catch(() => {});
    throw err;
  }
  return made === undefined ? { handle: current } : { handle: current, made };
}

/** Runs `fn` with a path for `absolute` that goes through its parent directory's handle (see openDirectoryBeneath). */
export async function inParent<T>(absolute: string, fn: (through: string) => Promise<T>): Promise<T> {
  const parent = await openDirectoryBeneath(path.dirname(absolute));
  try {
    return await fn(parent.at(path.basename(absolute)));
  } finally {
    await parent.close();
  }
}
