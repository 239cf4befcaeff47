import type { Stats } from "node:fs";
import { chmod, lstat, mkdir, readdir, readFile, readlink, rm, symlink } from "node:fs/promises";
import path from "node:path";
import type { Overlay } from "../../sandbox/overlay.js";
import { readListing } from "../../sandbox/overlay.js";
import { atomicWriteFile } from "../../workspace/atomic-write.js";
import { inParent } from "../../workspace/beneath.js";
import { READ_NOFOLLOW } from "../../workspace/no-follow.js";
import { formatCount } from "../../core/format-count.js";
import { replacementPreview } from "../fs/preview.js";

/** One entry the code created, changed or deleted, as it would be applied to the workspace. */
export interface WorkspaceChange {
  /** Workspace-relative, "/"-separated. */
  path: string;
  operation: "created" | "modified" | "deleted";
  kind: "file" | "folder" | "symlink";
  /** Permission bits to apply (setuid, setgid and sticky bits are never kept). */
  mode?: number;
  /** Set when the code had set bits that are dropped (setuid, setgid, sticky). */
  droppedBits?: boolean;
}

/** What a copy-on-write run left, compared with the workspace. */
export interface ChangeSet {
  changes: WorkspaceChange[];
  /** Entries that are never applied, with why (FIFOs, sockets, devices). */
  ignored: Array<{ path: string; why: string }>;
  /** Set when there were more changes than are applied at once: then none is. */
  tooMany?: number;
}

/** More changes than this in one run are not applied: no person reviews them one by one. */
export const MAX_CHANGES = 5000;
/** The longest preview shown for the whole set; per file, the diff's own limit holds. */
const MAX_PREVIEW_CHARS = 60_000;
const PERMISSION_BITS = 0o777;

/**
 * Compares the overlay's upper layer (and the listing of the folders the code changed) with the
 * workspace at `root`: every file, folder and symlink the code created, changed or deleted.
 */
export async function collectChanges(overlay: Overlay, root: string): Promise<ChangeSet> {
  const listing = await readListing(overlay);
  const set: ChangeSet = { changes: [], ignored: [] };
  const pending = [""];
  while (pending.length) {
    const rel = pending.pop()!;
    let names: string[];
    try {
      names = await readdir(path.join(overlay.upper, rel));
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      const child = rel ? `${rel}/${name}` : name;
      const up = await lstat(path.join(overlay.upper, child));
      // A whiteout: the entry was deleted; the listing below reports it.
      if (up.isCharacterDevice() && up.rdev === 0) continue;
      const low = await lstatOrUndefined(path.join(root, child));
      const kind = kindOf(up);
      if (!kind) {
        set.ignored.push({ path: child, why: `${describeSpecial(up)} is never copied out of the sandbox` });
        continue;
      }
      const lowKind = low ? kindOf(low) : undefined;
      if (low && lowKind !== kind) set.changes.push({ path: child, operation: "deleted", kind: lowKind ?? "file" });
      const replaced = low !== undefined && lowKind !== kind;
      if (kind === "folder") {
        if (!low || replaced) set.changes.push(withMode({ path: child, operation: "created", kind }, up));
        else if ((up.mode & 0o7777) !== (low.mode & 0o7777)) set.changes.push(withMode({ path: child, operation: "modified", kind }, up));
        pending.push(child);
      } else if (!low || replaced) {
        set.changes.push(withMode({ path: child, operation: "created", kind }, up));
      } else if (!(await sameEntry(path.join(overlay.upper, child), path.join(root, child), up, low))) {
        set.changes.push(withMode({ path: child, operation: "modified", kind }, up));
      }
    }
  }
  for (const [folder, shown] of listing) {
    let before: string[];
    try {
      before = await readdir(path.join(root, folder));
    } catch {
      continue;
    }
    for (const name of before.sort()) {
      if (shown.has(name)) continue;
      const child = folder ? `${folder}/${name}` : name;
      const low = await lstatOrUndefined(path.join(root, child));
      if (low) set.changes.push({ path: child, operation: "deleted", kind: kindOf(low) ?? "file" });
    }
  }
  if (set.changes.length > MAX_CHANGES) {
    set.tooMany = set.changes.length;
    set.changes = [];
  }
  return set;
}

function withMode(change: WorkspaceChange, st: Stats): WorkspaceChange {
  if (change.kind === "symlink") return change;
  const mode = st.mode & PERMISSION_BITS;
  return (st.mode & 0o7000) !== 0 ? { ...change, mode, droppedBits: true } : { ...change, mode };
}

function kindOf(st: Stats): WorkspaceChange["kind"] | undefined {
  if (st.isFile()) return "file";
  if (st.isDirectory()) return "folder";
  if (st.isSymbolicLink()) return "symlink";
  return undefined;
}

function describeSpecial(st: Stats): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  return "a device file";
}

async function lstatOrUndefined(p: string): Promise<Stats | undefined> {
  try {
    return await lstat(p);
  } catch {
    return undefined;
  }
}

/** Whether a copied-up entry is the same as the workspace's: overlayfs copies a file up on any open for writing. */
async function sameEntry(upper: string, lower: string, up: Stats, low: Stats): Promise<boolean> {
  if (up.isSymbolicLink()) return (await readlink(upper)) === (await readlink(lower));
  if ((up.mode & 0o7777) !== (low.mode & 0o7777) || up.size !== low.size) return false;
  const [a, b] = await Promise.all([readFile(upper, { flag: READ_NOFOLLOW }), readFile(lower, { flag: READ_NOFOLLOW })]);
  return a.equals(b);
}

/** What a person approving the changes sees: a unified diff per text file, a line for everything else. */
export async function previewChanges(overlay: Overlay, root: string, set: ChangeSet): Promise<string> {
  const parts: string[] = [];
  let length = 0;
  for (const [i, change] of set.changes.entries()) {
    if (length > MAX_PREVIEW_CHARS) {
      parts.push(`... ${formatCount(set.changes.length - i)} more changes not shown`);
      break;
    }
    const part = await previewOne(overlay, root, change);
    parts.push(part);
    length += part.length;
  }
  for (const item of set.ignored) parts.push(`Not applied: ${item.path} (${item.why}).`);
  return parts.join("\n");
}

async function previewOne(overlay: Overlay, root: string, change: WorkspaceChange): Promise<string> {
  const upper = path.join(overlay.upper, change.path);
  const note = change.droppedBits ? "\n(setuid, setgid and sticky bits dropped)" : "";
  if (change.operation === "deleted")
    return `Delete ${change.kind === "folder" ? `folder ${change.path}/ and everything in it` : change.path}`;
  if (change.kind === "folder") {
    return change.operation === "created"
      ? `Create folder ${change.path}/${note}`
      : `Change the permissions of ${change.path}/ to ${octal(change.mode)}${note}`;
  }
  if (change.kind === "symlink")
    return `${change.operation === "created" ? "Create" : "Change"} symlink ${change.path} -> ${await readlink(upper)}`;
  const next = await readFile(upper, { flag: READ_NOFOLLOW });
  const low = change.operation === "modified" ? await lstatOrUndefined(path.join(root, change.path)) : undefined;
  const diff = await replacementPreview(change.path, path.join(root, change.path), low?.size, next);
  const modeNote = low && (low.mode & 0o777) !== change.mode ? `\n(permissions ${octal(low.mode & 0o777)} -> ${octal(change.mode)})` : "";
  return `${diff.replace(/\n$/, "")}${modeNote}${note}`;
}

function octal(mode: number | undefined): string {
  return (mode ?? 0).toString(8).padStart(4, "0");
}

/** One line per change, for the model. */
export function summariseChanges(set: ChangeSet): string {
  return set.changes
    .map((c) => `${c.operation} ${c.kind === "folder" ? `${c.path}/` : c.path}${c.kind === "symlink" ? " (symlink)" : ""}`)
    .join("\n");
}

/**
 * Applies the changes to the workspace: deletions first, then folders from the top down, then
 * files (atomically) and symlinks. Every path goes through its parent folder's handle, so a
 * folder swapped for a symlink meanwhile cannot send a write outside. Returns the sizes written.
 */
export async function applyChanges(overlay: Overlay, root: string, changes: readonly WorkspaceChange[]): Promise<number> {
  let bytes = 0;
  for (const change of changes.filter((c) => c.operation === "deleted")) {
    await inParent(path.join(root, change.path), (through) => rm(through, { recursive: true, force: true }));
  }
  const folders = changes.filter((c) => c.kind === "folder" && c.operation !== "deleted");
  for (const change of folders.sort((a, b) => a.path.split("/").length - b.path.split("/").length)) {
    await inParent(path.join(root, change.path), async (through) => {
      if (change.operation === "created") await mkdir(through, { mode: 0o700 });
      await chmod(through, change.mode ?? 0o755);
    });
  }
  for (const change of changes.filter((c) => c.kind !== "folder" && c.operation !== "deleted")) {
    const target = path.join(root, change.path);
    const upper = path.join(overlay.upper, change.path);
    if (change.kind === "symlink") {
      const link = await readlink(upper);
      await inParent(target, async (through) => {
        await rm(through, { force: true });
        await symlink(link, through);
      });
      continue;
    }
    const data = await readFile(upper, { flag: READ_NOFOLLOW });
    // A symlink where the file goes would be followed by nothing: replaced, as the code replaced it.
    const low = await lstatOrUndefined(target);
    if (low?.isSymbolicLink()) await inParent(target, (through) => rm(through, { force: true }));
    bytes += await atomicWriteFile(target, data, { mode: change.mode ?? 0o644 });
    await inParent(target, (through) => chmod(through, change.mode ?? 0o644));
  }
  return bytes;
}
