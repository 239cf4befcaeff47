import type { Stats } from "node:fs";
import { statOrUndefined } from "../workspace/stat.js";
import type { FileReads } from "../core/tool.js";
import { WorkspaceRecord } from "../workspace/workspace-record.js";

/** A file's state as the model saw it: what a later change on disk moves. */
interface Stamp {
  /** Modification and change times: a command that sets the modification time back still moves the change time. */
  m: number;
  c: number;
  s: number;
  i: number;
}

interface Entry extends Stamp {
  p: string;
  t: number;
}

/** How long a `tackle call` session's reads count: a working day. */
const KEEP_MS = 12 * 3600 * 1000;

export interface ReadLedgerOptions {
  /**
   * Keep what was seen across processes, for the workspace at this root: each `tackle call` is
   * a process, and a model working through the command line reads in one and edits in the next.
   */
  persistFor?: string;
}

const stampOf = (st: Stats): Stamp => ({ m: st.mtimeMs, c: st.ctimeMs, s: st.size, i: st.ino });

/**
 * The ledger only records and advises: a path it cannot stat for any reason (a link loop, a folder
 * it may not search) counts as not seen, and never fails the call that asked.
 */
function statQuietly(absolute: string): Stats | undefined {
  try {
    return statOrUndefined(absolute);
  } catch {
    return undefined;
  }
}

const time = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, " UTC");

/**
 * The stale-edit guard's memory (see ToolContext.reads): for each file the model read or wrote
 * through tackle in this session, its state at that moment. An edit of a file whose state moved
 * since (another program, a shell command, a person) or that the model never read is refused
 * with what to do, so a model never overwrites changes it has not seen.
 */
export class ReadLedger implements FileReads {
  readonly #seen = new Map<string, Stamp>();
  readonly #record: WorkspaceRecord<Entry> | undefined;
  #loaded = false;

  constructor(options: ReadLedgerOptions = {}) {
    this.#record =
      options.persistFor === undefined
        ? undefined
        : new WorkspaceRecord<Entry>("reads", options.persistFor, KEEP_MS, (e) => typeof e.p === "string" && typeof e.m === "number");
  }

  saw(absolute: string, stat?: Stats): void {
    const st = stat ?? statQuietly(absolute);
    if (!st) {
      this.#seen.delete(absolute);
      return;
    }
    const stamp = stampOf(st);
    this.#seen.set(absolute, stamp);
    this.#record?.append({ p: absolute, ...stamp, t: Date.now() });
  }

  staleness(absolute: string): string | undefined {
    const st = statQuietly(absolute);
    if (!st) return undefined;
    this.#load();
    const seen = this.#seen.get(absolute);
    if (!seen) return "has not been read in this session";
    const now = stampOf(st);
    if (now.m === seen.m && now.c === seen.c && now.s === seen.s && now.i === seen.i) return undefined;
    const size = now.s === seen.s ? "" : ` (${seen.s} bytes then, ${now.s} now)`;
    return `changed on disk since it was last read${size}: it was modified at ${time(Math.max(now.m, now.c))}`;
  }

  #load(): void {
    if (this.#loaded || !this.#record) return;
    this.#loaded = true;
    // Entries are oldest first, so the latest state of each file wins; this process's own stay.
    const own = new Map(this.#seen);
    for (const e of this.#record.entries()) this.#seen.set(e.p, { m: e.m, c: e.c, s: e.s, i: e.i });
    for (const [p, stamp] of own) this.#seen.set(p, stamp);
  }
}
