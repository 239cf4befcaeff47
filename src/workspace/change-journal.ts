import { createHash, randomBytes } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../core/errors.js";
import { formatCount } from "../core/format-count.js";
import { appendLines } from "./append-line.js";
import { applyAllOrNone, type FileChange } from "./file-transaction.js";
import { readResolvedSync } from "./no-follow.js";
import { ownFolder, replaceOwnFile, tackleStateDir } from "./own-folders.js";
import { pathBelow } from "./path-below.js";
import type { Workspace } from "./workspace.js";

/*
 * Checkpoints: every change a tool call made to the workspace's files, kept so a person can
 * rewind it (`tackle undo`, POST /api/undo, Emacs). Outside the repository: in the user's state
 * folder, one journal per workspace (JSON lines) and the contents before and after each change
 * stored once by their hash. Bounded: the oldest calls are forgotten past maxEntries or maxBytes.
 */

/** A file as a call found or left it: its content's hash and mode, or absent (null). */
interface FileState {
  h: string | null;
  m?: number;
  /** Bytes, for the size bound. */
  s?: number;
}

/** One file a call changed. `b` before, `a` after; TOO_LARGE when it was not kept (too large, or a link). */
interface FileChangeRecord {
  p: string;
  b: FileState | typeof TOO_LARGE;
  a: FileState | typeof TOO_LARGE;
}

/** One call's changes. */
export interface JournalEntry {
  id: string;
  t: number;
  tool: string;
  call: string;
  files: FileChangeRecord[];
  /** The call changed more than the journal keeps: it cannot be undone, and no undo goes past it. */
  unkept?: true;
}

type Line = ({ kind: "change" } & JournalEntry) | { kind: "undo"; id: string; t: number } | { kind: "checkpoint"; name: string; t: number };

const TOO_LARGE = "too-large";
/** Calls kept between two checks of the bounds: the journal may pass them by this many calls. */
const BOUND_EVERY = 8;

export interface ChangeJournalOptions {
  /** Calls remembered (default 200). */
  maxEntries?: number;
  /** Bytes of kept contents (default 256 MiB); the oldest calls go first. */
  maxBytes?: number;
  /** Largest file kept (default 16 MiB); a change to a larger one cannot be undone, and says so. */
  maxFileBytes?: number;
  /** Most files one call may touch and still be kept, folders walked (default 5,000). */
  maxFiles?: number;
}

/** What one call's files were before it ran; {@link ChangeJournal.record} compares after. */
export interface Snapshot {
  readonly before: Map<string, FileState | typeof TOO_LARGE>;
  /** Bytes of content kept so far. */
  bytes: number;
  /** The call touches more than the journal keeps (files or bytes): its changes are not kept. */
  overflow: boolean;
}

/** A rewind done (or refused): what was restored, from which calls. */
export interface UndoResult {
  undone: Array<{ id: string; tool: string; t: number }>;
  files: Array<{ path: string; restored: "content" | "removed" }>;
}

/** A listing row for `tackle checkpoints`. */
export type JournalItem =
  | { kind: "change"; id: string; t: number; tool: string; files: string[]; undone: boolean; undoable: boolean }
  | { kind: "checkpoint"; name: string; t: number };

const hashOf = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

export class ChangeJournal {
  readonly #dir: string;
  readonly #journal: string;
  readonly #blobs: string;
  readonly #max: Required<ChangeJournalOptions>;
  #ready: boolean | undefined;
  #recorded = 0;

  constructor(
    private readonly workspace: Workspace,
    options: ChangeJournalOptions = {},
  ) {
    const key = createHash("sha256").update(workspace.root).digest("hex").slice(0, 32);
    this.#dir = path.join(tackleStateDir(), "checkpoints", key);
    this.#journal = path.join(this.#dir, "journal.jsonl");
    this.#blobs = path.join(this.#dir, "blobs");
    this.#max = {
      maxEntries: options.maxEntries ?? 200,
      maxBytes: options.maxBytes ?? 256 * 1024 * 1024,
      maxFileBytes: options.maxFileBytes ?? 16 * 1024 * 1024,
      maxFiles: options.maxFiles ?? 5000,
    };
  }

  /** The state of every file at or below `absolutes` (inside the workspace), before a call changes them. */
  snapshot(absolutes: readonly string[], into?: Snapshot): Snapshot {
    const snap = into ?? { before: new Map(), bytes: 0, overflow: false };
    for (const absolute of absolutes) {
      for (const rel of this.#filesAt(absolute, snap)) {
        if (snap.overflow) return snap;
        if (!snap.before.has(rel)) snap.before.set(rel, this.#keep(rel, snap));
      }
    }
    return snap;
  }

  /** Compares the snapshot's files with what they are now and keeps the call's changes, if any. */
  record(snap: Snapshot, tool: string, call: string): JournalEntry | undefined {
    if (!this.#open()) return undefined;
    if (snap.overflow) return this.#add({ tool, call, files: [], unkept: true });
    // Files created under a folder the call made or moved into place show up only now.
    const paths = new Set(snap.before.keys());
    for (const rel of [...paths]) for (const below of this.#filesAt(path.join(this.workspace.root, rel), snap)) paths.add(below);
    const files: FileChangeRecord[] = [];
    for (const rel of paths) {
      const before = snap.before.get(rel) ?? { h: null };
      const after = this.#keep(rel, snap);
      if (same(before, after)) continue;
      files.push({ p: rel, b: before, a: after });
    }
    if (snap.overflow) return this.#add({ tool, call, files: [], unkept: true });
    return files.length ? this.#add({ tool, call, files }) : undefined;
  }

  #add(change: Omit<JournalEntry, "id" | "t">): JournalEntry {
    const entry: JournalEntry = { id: `${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`, t: Date.now(), ...change };
    this.#append({ kind: "change", ...entry });
    // The bounds are checked every few calls (the journal is read whole to check them), and at the first.
    if (this.#recorded++ % BOUND_EVERY === 0) this.#bound();
    return entry;
  }

  /** Marks the present as a named checkpoint: `undo({ to: name })` rewinds everything after it. */
  checkpoint(name: string): void {
    if (!name.trim()) throw new ToolError("INVALID_ARGS", "A checkpoint needs a name.");
    if (!this.#open()) throw new ToolError("UNAVAILABLE", `No private state folder for checkpoints (${this.#dir}).`);
    this.#append({ kind: "checkpoint", name, t: Date.now() });
  }

  /** Calls and checkpoints, newest first. */
  list(): JournalItem[] {
    const lines = this.#lines();
    const undone = new Set(lines.flatMap((l) => (l.kind === "undo" ? [l.id] : [])));
    const items: JournalItem[] = [];
    for (const l of lines) {
      if (l.kind === "checkpoint") items.push({ kind: "checkpoint", name: l.name, t: l.t });
      else if (l.kind === "change") {
        items.push({
          kind: "change",
          id: l.id,
          t: l.t,
          tool: l.tool,
          files: l.files.map((f) => f.p),
          undone: undone.has(l.id),
          undoable: !l.unkept && l.files.every((f) => f.a !== TOO_LARGE && f.b !== TOO_LARGE),
        });
      }
    }
    return items.reverse();
  }

  /**
   * Rewinds the last `count` calls not yet undone, or every one after checkpoint `to`: each file
   * goes back to what it was before the first of them touched it. Refused, changing nothing, when
   * a file differs from what the last of them left (someone changed it since) or was too large to
   * keep. All files or none are restored.
   */
  async undo(what: { count?: number; to?: string; dryRun?: boolean } = {}): Promise<UndoResult> {
    const lines = this.#lines();
    const undone = new Set(lines.flatMap((l) => (l.kind === "undo" ? [l.id] : [])));
    let from = 0;
    if (what.to !== undefined) {
      const at = lines.findLastIndex((l) => l.kind === "checkpoint" && l.name === what.to);
      if (at === -1) {
        const names = [...new Set(lines.flatMap((l) => (l.kind === "checkpoint" ? [l.name] : [])))];
        throw new ToolError(
          "INVALID_ARGS",
          `There is no checkpoint "${what.to}".${names.length ? ` Checkpoints: ${names.slice(-10).join(", ")}.` : " None has been made."}`,
        );
      }
      from = at + 1;
    }
    let pending = lines.slice(from).filter((l): l is Line & { kind: "change" } => l.kind === "change" && !undone.has(l.id));
    if (what.to === undefined) pending = pending.slice(-Math.max(1, what.count ?? 1));
    if (!pending.length) {
      throw new ToolError(
        "INVALID_ARGS",
        what.to === undefined ? "There is no change left to undo." : `Nothing changed since "${what.to}".`,
      );
    }
    const over = pending.find((e) => e.unkept);
    if (over) {
      throw new ToolError(
        "INVALID_ARGS",
        `Cannot undo: ${over.tool} at ${new Date(over.t).toISOString()} changed more than the journal keeps ` +
          `(over ${formatCount(this.#max.maxFiles)} files or ${formatCount(this.#max.maxBytes)} bytes), so no undo goes past it. Nothing was changed.`,
      );
    }
    // For each file: what the newest call left (it must still be so), and what the oldest found.
    const expected = new Map<string, FileChangeRecord["a"]>();
    const target = new Map<string, FileChangeRecord["b"]>();
    for (const entry of [...pending].reverse()) {
      for (const f of entry.files) {
        if (!expected.has(f.p)) expected.set(f.p, f.a);
        target.set(f.p, f.b);
      }
    }
    const changedSince: string[] = [];
    const unkept: string[] = [];
    for (const [rel, after] of expected) {
      const before = target.get(rel)!;
      if (after === TOO_LARGE || before === TOO_LARGE) unkept.push(rel);
      else if (!same(after, this.#stateOf(rel))) changedSince.push(rel);
    }
    if (unkept.length) {
      throw new ToolError(
        "INVALID_ARGS",
        `Cannot undo: ${list(unkept)} ${unkept.length === 1 ? "was" : "were"} not kept ` +
          `(larger than ${formatCount(this.#max.maxFileBytes)} bytes, or a link). Nothing was changed.`,
      );
    }
    if (changedSince.length) {
      throw new ToolError(
        "STALE_FILE",
        `Cannot undo: ${list(changedSince)} changed since ${pending.length === 1 ? "that call" : "those calls"} (by someone or something else). ` +
          `Nothing was changed; undo fewer calls, or restore ${changedSince.length === 1 ? "it" : "them"} by hand.`,
      );
    }
    const changes: FileChange[] = [];
    const files: UndoResult["files"] = [];
    for (const [rel, before] of target) {
      const state = before as FileState;
      const absolute = this.workspace.resolveSync(rel, { write: true }).absolute;
      if (state.h === null) {
        if (this.#stateOf(rel).h !== null) changes.push({ kind: "remove", absolute });
        files.push({ path: rel, restored: "removed" });
      } else {
        changes.push({
          kind: "write",
          absolute,
          bytes: readFileSync(path.join(this.#blobs, state.h)),
          ...(state.m !== undefined ? { mode: state.m } : {}),
        });
        files.push({ path: rel, restored: "content" });
      }
    }
    const undoneNow = pending.map((e) => ({ id: e.id, tool: e.tool, t: e.t }));
    if (what.dryRun) return { undone: undoneNow, files };
    await applyAllOrNone(changes);
    for (const e of pending) this.#append({ kind: "undo", id: e.id, t: Date.now() });
    return { undone: undoneNow, files };
  }

  /** Workspace-relative files at or below `absolute`, without following links; none outside the workspace. */
  #filesAt(absolute: string, snap: Snapshot): string[] {
    const rel = pathBelow(this.workspace.root, absolute);
    if (rel === undefined || rel === "") return [];
    let st;
    try {
      st = lstatSync(absolute, { throwIfNoEntry: false });
    } catch {
      return [rel.split(path.sep).join("/")];
    }
    if (!st?.isDirectory()) return [rel.split(path.sep).join("/")];
    const out: string[] = [];
    // Past the bound nothing more is read: a folder of a million files costs what the bound does.
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (snap.overflow) return;
        if (out.length > this.#max.maxFiles) {
          snap.overflow = true;
          return;
        }
        const child = path.join(dir, e.name);
        if (e.isDirectory()) walk(child);
        else out.push(path.relative(this.workspace.root, child).split(path.sep).join("/"));
      }
    };
    walk(absolute);
    return out;
  }

  /** The file's state now, its content kept in the blob store (counted against the call's bound). */
  #keep(rel: string, snap: Snapshot): FileState | typeof TOO_LARGE {
    const absolute = path.join(this.workspace.root, rel);
    let st;
    try {
      st = lstatSync(absolute, { throwIfNoEntry: false });
    } catch {
      return { h: null };
    }
    if (!st) return { h: null };
    // A link (tools move and copy them) is not kept: undoing its call is refused, saying so.
    if (st.isSymbolicLink()) return TOO_LARGE;
    if (!st.isFile()) return { h: null };
    if (st.size > this.#max.maxFileBytes || !this.#open()) return TOO_LARGE;
    snap.bytes += st.size;
    if (snap.bytes > this.#max.maxBytes) {
      snap.overflow = true;
      return TOO_LARGE;
    }
    const bytes = readResolvedSync(absolute);
    const h = hashOf(bytes);
    const blob = path.join(this.#blobs, h);
    if (!statSync(blob, { throwIfNoEntry: false })) replaceOwnFile(blob, bytes);
    return { h, m: st.mode & 0o777, s: st.size };
  }

  /** The file's state now, without keeping it. */
  #stateOf(rel: string): FileState {
    const absolute = path.join(this.workspace.root, rel);
    try {
      const st = lstatSync(absolute, { throwIfNoEntry: false });
      if (!st) return { h: null };
      if (st.isSymbolicLink()) return { h: "link" };
      if (!st.isFile()) return { h: null };
      return { h: hashOf(readResolvedSync(absolute)), m: st.mode & 0o777 };
    } catch {
      return { h: null };
    }
  }

  /** The state folder, made private; false when it cannot be (then nothing is kept). */
  #open(): boolean {
    // The contents it keeps are the workspace's files: the folder is private, not only unwritable by others.
    this.#ready ??= ownFolder(this.#blobs, true) && ownFolder(this.#dir, true);
    return this.#ready;
  }

  #append(line: Line): void {
    appendLines(this.#journal, `${JSON.stringify(line)}\n`);
  }

  #lines(): Line[] {
    let text: string;
    try {
      text = readFileSync(this.#journal, "utf8");
    } catch {
      return [];
    }
    const out: Line[] = [];
    for (const raw of text.split("\n")) {
      if (!raw) continue;
      try {
        out.push(JSON.parse(raw) as Line);
      } catch {
        // a line cut by a crash: the others still count
      }
    }
    return out;
  }

  /** Forgets the oldest calls past the bounds, and the contents only they kept. */
  #bound(): void {
    const lines = this.#lines();
    const changes = lines.filter((l) => l.kind === "change");
    const bytesOf = (l: Line) =>
      l.kind === "change"
        ? l.files.reduce((n, f) => n + (f.a === TOO_LARGE ? 0 : (f.a.s ?? 0)) + (f.b === TOO_LARGE ? 0 : (f.b.s ?? 0)), 0)
        : 0;
    let total = changes.reduce((n, l) => n + bytesOf(l), 0);
    let count = changes.length;
    if (count <= this.#max.maxEntries && total <= this.#max.maxBytes) return;
    const dropped = new Set<string>();
    for (const l of changes) {
      if (count <= this.#max.maxEntries && total <= this.#max.maxBytes) break;
      if (l.kind !== "change") continue;
      dropped.add(l.id);
      count--;
      total -= bytesOf(l);
    }
    const firstKept = lines.findIndex((l) => l.kind === "change" && !dropped.has(l.id));
    const kept = lines.filter((l, i) =>
      l.kind === "change" ? !dropped.has(l.id) : l.kind === "undo" ? !dropped.has(l.id) : i >= firstKept,
    );
    replaceOwnFile(this.#journal, kept.map((l) => `${JSON.stringify(l)}\n`).join(""));
    const used = new Set(
      kept.flatMap((l) =>
        l.kind === "change" ? l.files.flatMap((f) => [f.a, f.b]).flatMap((s) => (s !== TOO_LARGE && s.h ? [s.h] : [])) : [],
      ),
    );
    for (const name of readdirSync(this.#blobs)) if (!used.has(name)) rmSync(path.join(this.#blobs, name), { force: true });
  }
}

function same(a: FileState | typeof TOO_LARGE, b: FileState | typeof TOO_LARGE): boolean {
  if (a === TOO_LARGE || b === TOO_LARGE) return false;
  return a.h === b.h && (a.h === null || a.m === undefined || b.m === undefined || a.m === b.m);
}

function list(paths: readonly string[]): string {
  const shown = paths.slice(0, 5).map((p) => `"${p}"`);
  return paths.length > 5
    ? `${shown.join(", ")} and ${formatCount(paths.length - 5)} more`
    : shown.join(paths.length === 2 ? " and " : ", ");
}
