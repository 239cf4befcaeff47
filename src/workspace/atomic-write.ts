import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open, rename, unlink } from "node:fs/promises";
import path from "node:path";
import { openDirectoryBeneath, type DirectoryHandle } from "./beneath.js";

/** Prefix of the temporary files an atomic write leaves only if the process dies mid-write. */
export const ATOMIC_TEMP_PREFIX = ".tackle-tmp-";

export interface AtomicWriteOptions {
  /** File mode for a new file (default 0o666 before umask). An existing file's mode is always kept. */
  mode?: number;
  /** Flush to disk before the rename (default true): a crash then leaves the old or the new content, never a torn file. */
  fsync?: boolean;
}

/**
 * Replaces `target` with `data` atomically: the bytes go to a temporary file in the same
 * directory, are flushed, and the temporary file is renamed over the target. Readers (and a
 * process killed at any moment) see either the old content or the new, never a mix.
 *
 * Because the directory entry is replaced, a hard link to a file elsewhere is cut rather than
 * written through: the other name keeps its old content. The existing file's mode is kept.
 * `target` must already be a resolved real path (no symlink at the end).
 */
export async function atomicWriteFile(target: string, data: Uint8Array | string, options: AtomicWriteOptions = {}): Promise<number> {
  const staged = await stageFile(target, data, options);
  try {
    await staged.commit();
  } finally {
    await staged.discard();
  }
  if (options.fsync !== false) await syncDirectory(path.dirname(target));
  return staged.size;
}

/** A file's new content written beside it, not yet in place: see {@link stageFile}. */
export interface StagedFile {
  /** Bytes staged. */
  readonly size: number;
  /** Renames the staged file over the target (atomic). */
  commit(): Promise<void>;
  /** Removes the staged file if it was not committed, and lets go of the folder. Always call it. */
  discard(): Promise<void>;
}

/**
 * The first half of {@link atomicWriteFile}: the bytes go to a flushed temporary file in the
 * target's folder (held open, so the folder cannot be swapped for a link meanwhile), and only
 * `commit` puts them in place. Staging many files before committing any lets a change to several
 * files fail before anything is visible, and their flushes overlap. The folder's own flush is the
 * caller's (once per folder). `held`, when given, is an open handle on the target's folder.
 */
export async function stageFile(
  target: string,
  data: Uint8Array | string,
  options: AtomicWriteOptions = {},
  held?: DirectoryHandle,
): Promise<StagedFile> {
  // Everything below goes through the held directory: a folder swapped for a symlink mid-write
  // cannot send the file elsewhere. A handle the caller holds (on the target's folder) stays open.
  const parent = held ?? (await openDirectoryBeneath(path.dirname(target)));
  const name = path.basename(target);
  const final = parent.at(name);
  const temp = parent.at(`${ATOMIC_TEMP_PREFIX}${name.slice(0, 40)}-${randomBytes(6).toString("hex")}`);
  let state: "staging" | "staged" | "committed" | "done" = "staging";
  const discard = async () => {
    if (state === "done") return;
    if (state !== "committed") await unlink(temp).catch(() => {});
    state = "done";
    if (!held) await parent.close();
  };
  try {
    let mode = options.mode ?? 0o666;
    let keepMode = false;
    try {
      const st = await lstat(final);
      if (st.isFile()) {
        mode = st.mode & 0o7777;
        keepMode = true;
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    // O_EXCL | O_NOFOLLOW: never follow or reuse something an attacker placed at the temporary name.
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    try {
      let offset = 0;
      while (offset < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, offset, Math.min(bytes.length - offset, 1 << 24));
        offset += bytesWritten;
      }
      // The umask narrowed the mode at creation; an existing file's mode is restored exactly.
      if (keepMode) await handle.chmod(mode);
      if (options.fsync !== false) await handle.sync();
    } finally {
      await handle.close();
    }
    state = "staged";
    return {
      size: bytes.length,
      commit: async () => {
        if (state !== "staged") throw new Error(`${target} is not staged`);
        await rename(temp, final);
        state = "committed";
      },
      discard,
    };
  } catch (err) {
    await discard();
    throw err;
  }
}

/** Flushes a directory so a rename in it survives a power cut; best effort where unsupported. */
export async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, constants.O_RDONLY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // some file systems refuse fsync on directories; the rename itself is still atomic
  }
}
