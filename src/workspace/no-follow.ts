import { closeSync, constants, openSync, readdirSync, readFileSync, readlinkSync, type Dirent } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../core/errors.js";

/**
 * Flags for opening an already resolved (real) path for reading: if a symlink was swapped in
 * at its last component since it was resolved, the open fails (ELOOP) instead of following it
 * out of the workspace.
 */
export const READ_NOFOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW;

const DIR_NOFOLLOW = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Linux names what a descriptor holds by `/proc/self/fd/N`, as the path it was reached by. */
const PROC_FD = process.platform === "linux" ? "/proc/self/fd" : undefined;

/*
 * O_NOFOLLOW guards only the last component. A folder on the way that a concurrent command swaps
 * for a link between the check of a path and its open (`mv d d.real; ln -s ~/.config/gh d`) would
 * lead the read out of the workspace, to a file no check saw. So what was opened is asked where
 * it is, and refused unless it is the very path that was resolved and checked.
 */
function verified(fd: number, absolute: string): void {
  if (!PROC_FD) return;
  const opened = readlinkSync(`${PROC_FD}/${fd}`);
  // A folder's path may be given with a trailing slash.
  if (opened === absolute || opened === path.resolve(absolute)) return;
  throw new ToolError(
    "INVALID_PATH",
    `${absolute} changed while it was being opened (a folder on its way was swapped for a link); nothing was read or written. ` +
      "Check the folder and try again.",
  );
}

/** Opens a resolved (real) path for reading, synchronously: the descriptor of that very file. */
export function openResolvedSync(absolute: string): number {
  const fd = openSync(absolute, READ_NOFOLLOW);
  try {
    verified(fd, absolute);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/** Opens a resolved (real) path, for reading unless `flags` say otherwise: a handle on that very file. */
export async function openResolved(absolute: string, flags = READ_NOFOLLOW): Promise<FileHandle> {
  const handle = await open(absolute, flags);
  try {
    verified(handle.fd, absolute);
  } catch (err) {
    await handle.close();
    throw err;
  }
  return handle;
}

/** The whole of a resolved (real) path's file. */
export async function readResolved(absolute: string): Promise<Buffer> {
  const handle = await openResolved(absolute);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The whole of a resolved (real) path's file, synchronously. */
export function readResolvedSync(absolute: string): Buffer {
  const fd = openResolvedSync(absolute);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The entries of a resolved (real) folder: that very folder's, whatever its path became meanwhile. */
export function readdirResolvedSync(dir: string): Dirent[] {
  if (!PROC_FD) return readdirSync(dir, { withFileTypes: true });
  const fd = openSync(dir, DIR_NOFOLLOW);
  try {
    verified(fd, dir);
    // Listed through the descriptor's own name: the folder opened, not whatever the path names now.
    return readdirSync(`${PROC_FD}/${fd}`, { withFileTypes: true });
  } finally {
    closeSync(fd);
  }
}
