import { createHash, randomUUID } from "node:crypto";
import {
  closeSync,
  existsSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  watch,
  writeFileSync,
  writeSync,
  type FSWatcher,
} from "node:fs";
import os from "node:os";
import { onNewLine } from "../workspace/append-line.js";
import path from "node:path";
import { ownFolder, tackleStateDir } from "../workspace/own-folders.js";
import { instanceId, processAlive, STALE_MS, storedEventLine } from "./instance.js";
import type { AuditEntry, ClaimResult, DeskAnswer, DeskEntry, DeskItem, InstanceInfo, SharedRule, Store, StoredEvent } from "./store.js";
import { DeskAnswerSchema, DeskEntrySchema, InstanceFileSchema, RuleLineSchema } from "./wire.js";

/*
 * The file store: one private folder per workspace under tackle's state folder, which no tool and
 * no sandbox reaches. Concurrent writers in other processes are safe without locks:
 *   pending/ID.json   a waiting call, written whole then renamed into place;
 *   answers/ID.json   its answer, linked into place, so exactly one claim creates it;
 *   rules.jsonl, events.jsonl, audit/audit.jsonl   lines appended with one write(2) each under
 *                     O_APPEND, so a killed process leaves whole lines or none, never a half or a double;
 *   instances/ID.json heartbeats: a file's modification time is its instance's last sign of life.
 * An event's id is the offset just past its line, so ids grow and a client resumes by offset.
 */

/**
 * The audit trail, in a folder of its own: a row goes in before every answer, and in the top folder,
 * which processes watch for rules and events, each row woke every one of them (tackle mcp's own
 * included, just as its client was being answered: some 40 µs of a 0.5 ms read, measured).
 */
const TRAIL = path.join("audit", "audit.jsonl");

/** How often an instance touches its heartbeat file. */
const HEARTBEAT_MS = 3_000;
/** events.jsonl is begun again past this size. */
const EVENTS_KEPT_BYTES = 32 * 1024 * 1024;
/** Answers are kept this long after their wait settles, to tell a late second answer who won. */
const ANSWER_KEPT_MS = 60 * 60_000;

/** The folder of a workspace's desk: `$XDG_STATE_HOME/tackle/desks/<hash of the workspace's real path>`. */
export function deskFolder(workspace: string): string {
  let real = path.resolve(workspace);
  try {
    real = realpathSync.native(real);
  } catch {
    // a workspace not there yet counts by its path as written
  }
  const hash = createHash("sha256").update(real).digest("hex").slice(0, 16);
  return path.join(tackleStateDir(), "desks", hash);
}

export class FileStore implements Store {
  readonly kind = "file" as const;
  readonly location: string;
  readonly instance = instanceId();
  readonly #dir: string;
  #made = false;
  #heartbeat: NodeJS.Timeout | undefined;
  #desk = false;
  readonly #fds = new Map<string, number>();
  /** Where each open file ended after this writer's last line. */
  readonly #ends = new Map<number, number>();
  readonly #listeners = new Set<(what: "desk" | "rules" | "events") => void>();
  #watchers: FSWatcher[] = [];
  #lastSweep = 0;

  readonly #eventsKeptBytes: number;

  constructor(dir: string, options: { eventsKeptBytes?: number } = {}) {
    this.#eventsKeptBytes = options.eventsKeptBytes ?? EVENTS_KEPT_BYTES;
    this.#dir = path.resolve(dir);
    this.location = `file:${this.#dir}`;
  }

  /** The folder, made private on first write: nothing is written through what another user planted. */
  #folder(): string {
    if (this.#made) return this.#dir;
    mkdirSync(path.dirname(this.#dir), { recursive: true, mode: 0o700 });
    for (const sub of ["", "pending", "answers", "instances", "audit"]) {
      const dir = path.join(this.#dir, sub);
      if (!ownFolder(dir, true)) {
        throw new Error(`The store folder ${dir} is not a private folder of this user's (it must be 0700 and owned by them).`);
      }
    }
    this.#made = true;
    return this.#dir;
  }

  #path(...parts: string[]): string {
    return path.join(this.#folder(), ...parts);
  }

  async post(entry: DeskEntry): Promise<void> {
    const file = this.#path("pending", `${safeId(entry.id)}.json`);
    const tmp = this.#path("pending", `.${randomUUID()}.tmp`);
    writeFileSync(tmp, JSON.stringify(entry), { mode: 0o600 });
    renameSync(tmp, file);
  }

  async claim(id: string, answer: DeskAnswer): Promise<ClaimResult> {
    const name = `${safeId(id)}.json`;
    if (!existsSync(this.#path("pending", name))) {
      const kept = await this.answerOf(id);
      return kept ? { won: false, reason: "answered", answer: kept } : { won: false, reason: "unknown" };
    }
    const tmp = this.#path("answers", `.${randomUUID()}.tmp`);
    writeFileSync(tmp, JSON.stringify(answer), { mode: 0o600 });
    try {
      // link(2) fails when the name exists: of any number of claims, one creates it.
      linkSync(tmp, this.#path("answers", name));
      return { won: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const kept = await this.answerOf(id);
      return kept ? { won: false, reason: "answered", answer: kept } : { won: false, reason: "unknown" };
    } finally {
      unlinkQuietly(tmp);
    }
  }

  async answerOf(id: string): Promise<DeskAnswer | undefined> {
    const text = readIfThere(path.join(this.#dir, "answers", `${safeId(id)}.json`));
    if (text === undefined) return undefined;
    const parsed = DeskAnswerSchema.safeParse(jsonOrUndefined(text));
    return parsed.success ? (parsed.data as DeskAnswer) : undefined;
  }

  async waiting(): Promise<DeskItem[]> {
    const names = listIfThere(path.join(this.#dir, "pending")).filter((n) => n.endsWith(".json"));
    if (names.length === 0) return [];
    const answered = new Set(listIfThere(path.join(this.#dir, "answers")));
    const alive = new Set((await this.instances()).map((i) => i.id));
    const items: DeskItem[] = [];
    for (const name of names) {
      if (answered.has(name)) continue;
      const parsed = DeskEntrySchema.safeParse(jsonOrUndefined(readIfThere(path.join(this.#dir, "pending", name)) ?? ""));
      if (!parsed.success) continue;
      const entry = parsed.data as DeskEntry;
      items.push({ ...entry, orphaned: !alive.has(entry.instance) });
    }
    return items.sort((a, b) => a.askedAt - b.askedAt);
  }

  async settle(id: string): Promise<void> {
    unlinkQuietly(path.join(this.#dir, "pending", `${safeId(id)}.json`));
    this.#sweepAnswers();
  }

  /** Old answers go, now and then, so the folder does not grow without end. */
  #sweepAnswers(): void {
    const now = Date.now();
    if (now - this.#lastSweep < 60_000) return;
    this.#lastSweep = now;
    const dir = path.join(this.#dir, "answers");
    const pending = new Set(listIfThere(path.join(this.#dir, "pending")));
    for (const name of listIfThere(dir)) {
      const file = path.join(dir, name);
      try {
        if (!pending.has(name) && now - statSync(file).mtimeMs > ANSWER_KEPT_MS) unlinkSync(file);
      } catch {
        // another process swept it first
      }
    }
  }

  async register(desk: boolean): Promise<void> {
    this.#desk ||= desk;
    const file = this.#path("instances", `${safeId(this.instance)}.json`);
    const info = { id: this.instance, host: os.hostname(), pid: process.pid, desk: this.#desk };
    writeFileSync(file, JSON.stringify(info), { mode: 0o600 });
    if (this.#heartbeat) return;
    this.#heartbeat = setInterval(() => {
      const now = new Date();
      try {
        utimesSync(file, now, now);
      } catch {
        // swept as dead by another process while this one slept: say so again
        try {
          writeFileSync(file, JSON.stringify(info), { mode: 0o600 });
        } catch {
          // the folder is gone; the next register makes it again
        }
      }
    }, HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  async instances(): Promise<InstanceInfo[]> {
    const dir = path.join(this.#dir, "instances");
    const host = os.hostname();
    const now = Date.now();
    const alive: InstanceInfo[] = [];
    for (const name of listIfThere(dir)) {
      const file = path.join(dir, name);
      let seenAt: number;
      try {
        seenAt = statSync(file).mtimeMs;
      } catch {
        continue;
      }
      const parsed = InstanceFileSchema.safeParse(jsonOrUndefined(readIfThere(file) ?? ""));
      if (!parsed.success) continue;
      const info = parsed.data;
      // On this machine a process that is gone is known at once; elsewhere, by its silence.
      const gone = now - seenAt > STALE_MS || (info.host === host && !processAlive(info.pid));
      if (gone) {
        if (now - seenAt > 10 * STALE_MS) unlinkQuietly(file);
        continue;
      }
      alive.push({ ...info, seenAt });
    }
    return alive;
  }

  async addRule(rule: Omit<SharedRule, "id" | "at">): Promise<SharedRule> {
    const kept: SharedRule = { ...rule, id: randomUUID(), at: Date.now() };
    this.#append("rules.jsonl", `${JSON.stringify(kept)}\n`);
    return kept;
  }

  async removeRule(id: string, by: string): Promise<boolean> {
    if (!(await this.rules()).some((r) => r.id === id)) return false;
    this.#append("rules.jsonl", `${JSON.stringify({ removed: id, by, at: Date.now() })}\n`);
    return true;
  }

  async rules(): Promise<SharedRule[]> {
    const text = readIfThere(path.join(this.#dir, "rules.jsonl"));
    if (!text) return [];
    const rules = new Map<string, SharedRule>();
    for (const line of text.split("\n")) {
      const parsed = RuleLineSchema.safeParse(jsonOrUndefined(line));
      if (!parsed.success) continue;
      if ("removed" in parsed.data) rules.delete(parsed.data.removed);
      else rules.set(parsed.data.id, parsed.data as SharedRule);
    }
    return [...rules.values()];
  }

  async publish(events: ReadonlyArray<{ type: string; data: unknown }>): Promise<void> {
    if (events.length === 0) return;
    const at = Date.now();
    this.#followRotation("events.jsonl");
    this.#append("events.jsonl", events.map((e) => storedEventLine(e, this.instance, at)).join(""));
  }

  /**
   * Events are a replay buffer, not the record: past a size (32 MiB by default) the file is moved to
   * events.old.jsonl and a new one begun (readers past its end start it from the beginning). A
   * writer whose file another process moved opens the new one.
   */
  #followRotation(name: string): void {
    const fd = this.#fds.get(name);
    if (fd === undefined) return;
    const file = path.join(this.#dir, name);
    const mine = fstatSync(fd);
    let current: ReturnType<typeof statSync> | undefined;
    try {
      current = statSync(file);
    } catch {
      // moved away and not yet begun again
    }
    if (current && current.ino === mine.ino && mine.size < this.#eventsKeptBytes) return;
    if (current && current.ino === mine.ino) {
      try {
        renameSync(file, path.join(this.#dir, "events.old.jsonl"));
      } catch {
        // another process moved it first
      }
    }
    closeSync(fd);
    this.#fds.delete(name);
  }

  async eventsAfter(after: string | undefined, limit: number): Promise<StoredEvent[]> {
    let fd: number;
    try {
      fd = openSync(path.join(this.#dir, "events.jsonl"), "r");
    } catch {
      return [];
    }
    try {
      const size = fstatSync(fd).size;
      let pos = after === undefined ? 0 : Number(after);
      // An id from another file (the folder was cleared) starts again from the beginning.
      if (!Number.isSafeInteger(pos) || pos < 0 || pos > size) pos = 0;
      const out: StoredEvent[] = [];
      let carry: Buffer | undefined;
      while (pos < size && out.length < limit) {
        const chunk = Buffer.allocUnsafe(Math.min(size - pos, READ_CHUNK));
        const n = readSync(fd, chunk, 0, chunk.length, pos);
        if (n <= 0) break;
        const buf = carry ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
        let lineStart = pos - (carry?.length ?? 0);
        pos += n;
        let from = 0;
        for (let nl = buf.indexOf(10); nl !== -1 && out.length < limit; nl = buf.indexOf(10, from)) {
          const event = eventFrom(buf.toString("utf8", from, nl));
          lineStart += nl + 1 - from;
          if (event) out.push({ ...event, id: String(lineStart) });
          from = nl + 1;
        }
        carry = from < buf.length ? Buffer.from(buf.subarray(from)) : undefined;
      }
      return out;
    } finally {
      closeSync(fd);
    }
  }

  async lastEventId(): Promise<string | undefined> {
    try {
      return String(statSync(path.join(this.#dir, "events.jsonl")).size);
    } catch {
      return "0";
    }
  }

  isAfter(a: string, b: string): boolean {
    return Number(a) > Number(b);
  }

  async audit(...entries: AuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const at = new Date().toISOString();
    const lines = entries.map((entry) => `${JSON.stringify({ ...entry, instance: this.instance, at })}\n`);
    if (!this.#fds.has(TRAIL)) this.#adoptOldTrail();
    this.#append(TRAIL, lines.join(""));
  }

  /**
   * A trail that an earlier version kept in the top folder moves into audit/: linked, so a writer
   * still holding it open appends to the same file, and never over a trail already there.
   */
  #adoptOldTrail(): void {
    const old = this.#path("audit.jsonl");
    try {
      linkSync(old, this.#path(TRAIL));
    } catch {
      return;
    }
    unlinkQuietly(old);
  }

  onChange(listener: (what: "desk" | "rules" | "events") => void): () => void {
    this.#listeners.add(listener);
    if (this.#watchers.length === 0) this.#watch();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#unwatch();
    };
  }

  #watch(): void {
    const tell = (what: "desk" | "rules" | "events") => {
      for (const l of [...this.#listeners]) l(what);
    };
    const add = (dir: string, what: (name: string | null) => "desk" | "rules" | "events" | undefined) => {
      try {
        const w = watch(dir, { persistent: false }, (_type, name) => {
          const kind = what(name);
          if (kind) tell(kind);
        });
        w.on("error", () => undefined);
        this.#watchers.push(w);
      } catch {
        // without a watch, the poll still finds every change
      }
    };
    this.#folder();
    add(this.#dir, (name) => (name === "events.jsonl" ? "events" : name === "rules.jsonl" ? "rules" : undefined));
    add(path.join(this.#dir, "pending"), (name) => (name?.endsWith(".json") ? "desk" : undefined));
    add(path.join(this.#dir, "answers"), (name) => (name?.endsWith(".json") ? "desk" : undefined));
  }

  #unwatch(): void {
    for (const w of this.#watchers) w.close();
    this.#watchers = [];
  }

  /** One write(2) under O_APPEND: whole lines, whoever else appends, after any line a killed writer tore (see onNewLine). */
  #append(name: string, text: string): void {
    let fd = this.#fds.get(name);
    if (fd === undefined) {
      fd = openSync(this.#path(name), "a+", 0o600);
      this.#fds.set(name, fd);
    }
    // A file still ending where this writer's last line ended it ends with a newline: no need to read its last byte.
    const size = fstatSync(fd).size;
    const buf = Buffer.from(size === this.#ends.get(fd) ? text : onNewLine(fd, text), "utf8");
    const written = writeSync(fd, buf, 0, buf.length);
    if (written !== buf.length) throw new Error(`The store could not write ${name} whole (disk full?).`);
    // Wrong only if another writer appended in between; the file is then longer and the next append reads its last byte.
    this.#ends.set(fd, size + buf.length);
  }

  async close(): Promise<void> {
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    this.#unwatch();
    this.#listeners.clear();
    for (const fd of this.#fds.values()) closeSync(fd);
    this.#fds.clear();
    this.#ends.clear();
    if (this.#made) unlinkQuietly(path.join(this.#dir, "instances", `${safeId(this.instance)}.json`));
  }
}

/** How much of events.jsonl is read at a time. */
const READ_CHUNK = 256 * 1024;

/** An events.jsonl line as an event, or undefined for one that is not (checked by hand: this runs for every event). */
function eventFrom(line: string): Omit<StoredEvent, "id"> | undefined {
  const e = jsonOrUndefined(line) as Partial<StoredEvent> | undefined;
  if (!e || typeof e !== "object" || typeof e.type !== "string" || typeof e.instance !== "string" || typeof e.at !== "number")
    return undefined;
  return { type: e.type, data: e.data, instance: e.instance, at: e.at };
}

/** An id as a file name: nothing that could leave the folder. */
function safeId(id: string): string {
  return id.replace(/[^A-Za-z0-9_.:-]/g, "_").replace(/^\.+/, "_");
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function listIfThere(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
