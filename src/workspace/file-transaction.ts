import { lstat, rmdir, unlink } from "node:fs/promises";
import path from "node:path";
import { mapLimit } from "../core/map-limit.js";
import { atomicWriteFile, stageFile, syncDirectory, type StagedFile } from "./atomic-write.js";
import { inParent, mkdirBeneath, openDirectoryBeneath, type DirectoryHandle } from "./beneath.js";
import { readResolved } from "./no-follow.js";

/** One change to a file: its new bytes (mode for a new file), or its removal. Paths are resolved real paths. */
export type FileChange = { kind: "write"; absolute: string; bytes: Uint8Array; mode?: number } | { kind: "remove"; absolute: string };

interface Prepared {
  change: FileChange;
  /** The file as it was, or undefined when the change creates it. */
  before?: { bytes: Buffer; mode: number };
  /** The topmost folder the change had to create, removed again on undo if still empty. */
  madeDir?: string;
  staged?: StagedFile;
}

/** Files staged at once: their flushes overlap, within what a process may hold open. */
const PARALLEL = 16;

/**
 * Applies every change, or none. First every new content is staged beside its file and flushed
 * (a failure there leaves nothing changed), then each is renamed into place and each removal
 * made; if one of those fails, the ones already made are undone in reverse (files restored with
 * their bytes and mode, created files and folders removed) and the error is thrown. A reader never
 * sees a torn file; a process killed during the renames can leave the earlier ones made.
 */
export async function applyAllOrNone(changes: readonly FileChange[]): Promise<void> {
  const prepared: Prepared[] = changes.map((change) => ({ change }));
  // One handle per folder, shared by the files staged in it (opening one walks from the root).
  const folders = new Map<string, Promise<DirectoryHandle>>();
  const folder = (dir: string) => {
    let handle = folders.get(dir);
    if (!handle) folders.set(dir, (handle = openDirectoryBeneath(dir)));
    return handle;
  };
  const closeFolders = () => Promise.all([...folders.values()].map((h) => h.then((d) => d.close()).catch(() => {})));
  try {
    await mapLimit(prepared, PARALLEL, async (p) => {
      const before = await snapshot(p.change.absolute);
      if (before) p.before = before;
      if (p.change.kind !== "write") return;
      const dir = path.dirname(p.change.absolute);
      const made = await mkdirBeneath(dir);
      if (made) p.madeDir = made;
      const options = p.change.mode === undefined ? {} : { mode: p.change.mode };
      p.staged = await stageFile(p.change.absolute, p.change.bytes, options, await folder(dir));
    });
  } catch (err) {
    await Promise.all(prepared.map((p) => p.staged?.discard()));
    await closeFolders();
    for (const p of [...prepared].reverse()) if (p.madeDir) await removeEmptyUpTo(path.dirname(p.change.absolute), p.madeDir);
    throw err;
  }
  const done: Prepared[] = [];
  try {
    for (const p of prepared) {
      done.push(p);
      if (p.staged) await p.staged.commit();
      else await inParent(p.change.absolute, (through) => unlink(through));
    }
  } catch (err) {
    const failed = await rollBack(done);
    if (failed.length && err instanceof Error) {
      err.message += ` Undoing the changes already made also failed for ${failed.join(", ")}; check those files.`;
    }
    throw err;
  } finally {
    await Promise.all(prepared.map((p) => p.staged?.discard()));
    await closeFolders();
  }
  await Promise.all([...new Set(changes.map((c) => path.dirname(c.absolute)))].map(syncDirectory));
}

async function snapshot(absolute: string): Promise<{ bytes: Buffer; mode: number } | undefined> {
  try {
    const st = await lstat(absolute);
    if (!st.isFile()) return undefined;
    return { bytes: await readResolved(absolute), mode: st.mode & 0o7777 };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** Undoes `done` newest first; returns the paths it could not put back. */
async function rollBack(done: readonly Prepared[]): Promise<string[]> {
  const failed: string[] = [];
  for (const u of [...done].reverse()) {
    try {
      if (u.before) await atomicWriteFile(u.change.absolute, u.before.bytes, { mode: u.before.mode });
      else if (u.change.kind === "write") {
        await inParent(u.change.absolute, (through) => unlink(through)).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== "ENOENT") throw err;
        });
      }
      if (u.madeDir) await removeEmptyUpTo(path.dirname(u.change.absolute), u.madeDir);
    } catch {
      failed.push(u.change.absolute);
    }
  }
  return failed;
}

/** Removes `dir` and its parents up to and including `top` while they are empty. */
async function removeEmptyUpTo(dir: string, top: string): Promise<void> {
  for (let d = dir; d.length >= top.length; d = path.dirname(d)) {
    try {
      await rmdir(d);
    } catch {
      return;
    }
    if (d === top) return;
  }
}
