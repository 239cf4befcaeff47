import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
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
  let current: FileHandle = await open("/", DIR_FLAGS);
  try {
    for (const part of path.resolve(dir).split("/").filter(Boolean)) {
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
        throw err;
      }
      await current.close();
      current = next;
    }
  } catch (err) {
    await current.close().catch(() => {});
    throw err;
  }
  const held = current;
  return { at: (name) => `${PROC_FD}/${held.fd}/${name}`, close: () => held.close() };
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
