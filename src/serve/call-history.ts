import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import { z } from "zod";
import type { ToolEvent } from "../runtime/events.js";
import type { DeskEvent as ApprovalEvent } from "../store/desk.js";

/** Where a call stands: an outcome, or still running / waiting for a person. */
export type HistoryStatus = "success" | "error" | "rejected" | "cancelled" | "running" | "waiting";

/** One call as the history lists it. */
export interface HistorySummary {
  /** Unique within this server (a toolCallId may repeat across runs). */
  seq: number;
  toolCallId: string;
  tool: string;
  status: HistoryStatus;
  approvedBy?: string;
  durationMs?: number;
  /** When the call started (this server's calls) or was logged (earlier runs). */
  timestamp: string;
  /** "log": an earlier run, read from the audit log; "live": a call made through this server. */
  source: "log" | "live";
}

/** One call opened: its arguments, result, error and (for this server's calls) its events. */
export interface HistoryDetail extends HistorySummary {
  args?: unknown;
  result?: string;
  error?: string;
  errorCode?: string;
  events: Array<{ at: string; type: string; data: unknown }>;
  /** Set when the detail is no longer kept (an old call of this server). */
  note?: string;
}

export interface HistoryQuery {
  tool?: string;
  status?: string;
  /** Case-insensitive text in the tool, id, status, approver, arguments or error. */
  text?: string;
  /** Only calls older than this seq (the `next` of the previous page). */
  before?: number;
  limit?: number;
}

export interface HistoryPage {
  items: HistorySummary[];
  /** Pass as `before` for the next page; absent on the last. */
  next?: number;
}

interface Entry extends HistorySummary {
  /** Lower-case text the text filter searches: bounded so a long log stays small in memory. */
  search: string;
  /** Where an earlier run's line sits in the audit log. */
  offset?: number;
  length?: number;
  live?: LiveDetail;
}

interface LiveDetail {
  args?: unknown;
  result?: string;
  error?: string;
  errorCode?: string;
  events: Array<{ at: string; type: string; data: unknown }>;
}

/** The audit log's line, as far as the history needs it (src/runtime/audit-log.ts writes it). */
const AuditLine = z.object({
  timestamp: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  params: z.unknown().optional(),
  status: z.enum(["success", "error", "rejected", "cancelled"]),
  result: z.string().optional(),
  error: z.string().optional(),
  errorCode: z.string().optional(),
  executionTimeMs: z.number(),
  approvedBy: z.string().optional(),
});

const SEARCH_CHARS = 300;
const MAX_LIMIT = 200;
const DEFAULT_LIMIT = 50;
/** This server's calls keep their full detail while they are among the most recent. */
const LIVE_DETAILS = 2_000;
const EVENTS_PER_CALL = 200;
const EVENT_TEXT_CHARS = 2_000;
const RESULT_CHARS = 20_000;
/** Recent durations per tool, for the metrics charts. */
const SERIES_LENGTH = 40;
/** Log lines read and parsed per step of the backward pass. */
const BATCH_LINES = 2_000;

/**
 * Every call this server knows, newest first: earlier runs' calls indexed from the audit log and
 * this server's calls as their events arrive. An entry's seq is its place in the list (a log
 * line's number, then this server's calls), so a page starts by index and costs only the scan to
 * its last item. The log is indexed in two passes: line starts first (a byte scan), then the lines
 * parsed from the newest back, so the first page is served while older lines are still being read.
 * A line is re-read from the file only when the call is opened.
 */
export class CallHistory {
  /** Index = seq - 1; null for a log line that is not a call (or not yet read). */
  readonly #entries: Array<Entry | null> = [];
  readonly #running = new Map<string, Entry>();
  readonly #tools = new Set<string>();
  readonly #series = new Map<string, number[]>();
  readonly #logPath: string | undefined;
  /** Log lines below this index are not read yet. */
  #readFrom = 0;
  #indexed = false;
  #progress: Array<() => void> = [];
  /** Events that arrive before the log's lines are counted, replayed after. */
  #early: Array<ToolEvent | ApprovalEvent> | undefined = [];
  #liveWithDetail: Entry[] = [];
  #size = 0;
  /** Resolves once the log's lines are counted: from then on seqs are fixed. */
  readonly counted: Promise<void>;
  /** Resolves once the whole audit log has been indexed. */
  readonly ready: Promise<void>;

  constructor(options: { logPath?: string } = {}) {
    this.#logPath = options.logPath;
    const starts = this.#logPath ? lineStarts(this.#logPath) : Promise.resolve([0]);
    // Without a log there is nothing to count: calls are followed from the start.
    if (!this.#logPath) this.#early = undefined;
    this.counted = starts.then((s) => {
      if (!this.#early) return;
      this.#entries.length = s.length - 1;
      this.#entries.fill(null);
      this.#readFrom = s.length - 1;
      const early = this.#early ?? [];
      this.#early = undefined;
      for (const e of early) this.observe(e);
    });
    this.ready = starts
      .then((s) => this.counted.then(() => this.#indexBackwards(s)))
      // A log that cannot be read (removed, unreadable midway) leaves its unread lines out.
      .catch(() => undefined)
      .finally(() => {
        this.#indexed = true;
        this.#readFrom = 0;
        this.#wake();
      });
  }

  /** How many calls are indexed. */
  get size(): number {
    return this.#size;
  }

  /** Tool names seen, for the filter. */
  tools(): string[] {
    return [...this.#tools].sort();
  }

  /** Recent durations (ms) per tool, oldest first. */
  series(): Record<string, number[]> {
    return Object.fromEntries(this.#series);
  }

  /** Calls running or waiting for a person now. */
  active(): HistorySummary[] {
    return [...this.#running.values()].map(summary);
  }

  /** A page of calls, newest first; waits only for the part of the log it has to look at. */
  async page(query: HistoryQuery = {}): Promise<HistoryPage> {
    await this.counted;
    const limit = Math.min(Math.max(1, Math.floor(query.limit ?? DEFAULT_LIMIT)), MAX_LIMIT);
    const text = query.text?.trim().toLowerCase() || undefined;
    const items: HistorySummary[] = [];
    let i = Math.min(this.#entries.length, query.before === undefined ? Infinity : Math.max(0, query.before - 1)) - 1;
    for (; i >= 0; i--) {
      while (i < this.#readFrom && !this.#indexed) await this.#nextProgress();
      const e = this.#entries[i];
      if (!e) continue;
      if (query.tool && e.tool !== query.tool) continue;
      if (query.status && e.status !== query.status) continue;
      if (text && !e.search.includes(text)) continue;
      if (items.length === limit) return { items, next: items[items.length - 1]!.seq };
      items.push(summary(e));
    }
    return { items };
  }

  /** One call in full, or undefined when there is no such seq. */
  async detail(seq: number): Promise<HistoryDetail | undefined> {
    await this.counted;
    if (!Number.isInteger(seq) || seq < 1) return undefined;
    while (seq - 1 < this.#readFrom && !this.#indexed) await this.#nextProgress();
    const e = this.#entries[seq - 1];
    if (!e) return undefined;
    if (e.source === "live") {
      if (!e.live) return { ...summary(e), events: [], note: "Older calls keep only their summary." };
      return { ...summary(e), ...e.live, events: [...e.live.events] };
    }
    const line = await this.#readLine(e);
    if (!line) return { ...summary(e), events: [], note: "The audit log no longer holds this line." };
    return {
      ...summary(e),
      args: line.params,
      ...(line.result !== undefined ? { result: line.result } : {}),
      ...(line.error !== undefined ? { error: line.error } : {}),
      ...(line.errorCode !== undefined ? { errorCode: line.errorCode } : {}),
      events: [],
    };
  }

  /** Follows the runner's and the approval queue's events. */
  observe(event: ToolEvent | ApprovalEvent): void {
    if (event.type === "agent.state") return;
    if (this.#early) return void this.#early.push(event);
    const at = new Date().toISOString();
    let entry = this.#running.get(event.toolCallId);
    if (!entry) {
      // A call refused before it started (unknown tool, invalid arguments) has only its result.
      if (event.type !== "tool.call" && event.type !== "tool.result") return;
      entry = this.#add({
        toolCallId: event.toolCallId,
        tool: event.tool,
        status: "running",
        timestamp: at,
        source: "live",
        search: "",
        live: { events: [] },
      });
      this.#running.set(event.toolCallId, entry);
    }
    const live = entry.live;
    if (live && live.events.length < EVENTS_PER_CALL) live.events.push({ at, type: event.type, data: eventData(event) });
    switch (event.type) {
      case "tool.call":
        if (live) live.args = event.args;
        entry.search = searchText(entry.tool, entry.toolCallId, event.args, undefined);
        break;
      case "approval.requested":
        entry.status = "waiting";
        break;
      case "approval.resolved":
      case "tool.approval":
        if (entry.status === "waiting") entry.status = "running";
        break;
      case "tool.result": {
        const o = event.outcome;
        entry.status = o.status;
        entry.durationMs = o.executionTimeMs;
        if (o.approvedBy) entry.approvedBy = o.approvedBy;
        if (live) {
          if (o.status === "success") live.result = o.content.slice(0, RESULT_CHARS);
          if (o.error) {
            live.error = o.error.message;
            live.errorCode = o.error.code;
          }
          if (o.status === "rejected" && o.content && !o.error) live.error = o.content;
        }
        entry.search = `${searchText(entry.tool, entry.toolCallId, live?.args, live?.error)} ${o.status} ${o.approvedBy ?? ""}`;
        this.#running.delete(event.toolCallId);
        const list = this.#series.get(entry.tool) ?? [];
        list.push(o.executionTimeMs);
        if (list.length > SERIES_LENGTH) list.shift();
        this.#series.set(entry.tool, list);
        break;
      }
      default:
        break;
    }
  }

  #add(fields: Omit<Entry, "seq">): Entry {
    const entry: Entry = { seq: this.#entries.length + 1, ...fields };
    this.#entries.push(entry);
    this.#size++;
    this.#tools.add(entry.tool);
    if (entry.live) {
      this.#liveWithDetail.push(entry);
      if (this.#liveWithDetail.length > LIVE_DETAILS * 1.5) {
        // Dropped in batches: shifting one at a time would cost a copy per call.
        const drop = this.#liveWithDetail.length - LIVE_DETAILS;
        for (const old of this.#liveWithDetail.slice(0, drop)) if (!this.#running.has(old.toolCallId)) delete old.live;
        this.#liveWithDetail = this.#liveWithDetail.slice(drop);
      }
    }
    return entry;
  }

  #nextProgress(): Promise<void> {
    return new Promise((resolve) => this.#progress.push(resolve));
  }

  #wake(): void {
    const waiting = this.#progress;
    this.#progress = [];
    for (const w of waiting) w();
  }

  /** Reads the log's lines from the newest back, a batch at a time, waking pages waiting on them. */
  async #indexBackwards(starts: number[]): Promise<void> {
    if (!this.#logPath || starts.length < 2) return;
    const handle = await open(this.#logPath, "r");
    try {
      for (let hi = starts.length - 1; hi > 0;) {
        const lo = Math.max(0, hi - BATCH_LINES);
        const from = starts[lo]!;
        const buf = Buffer.alloc(starts[hi]! - from);
        await handle.read(buf, 0, buf.length, from);
        for (let i = hi - 1; i >= lo; i--) this.#indexLine(buf, starts[i]! - from, starts[i + 1]! - 1 - from, i, from);
        this.#readFrom = hi = lo;
        this.#wake();
      }
    } finally {
      await handle.close();
    }
  }

  #indexLine(buf: Buffer, start: number, end: number, index: number, bufOffset: number): void {
    if (end <= start) return;
    let raw: unknown;
    try {
      raw = JSON.parse(buf.toString("utf8", start, end));
    } catch {
      return;
    }
    const parsed = AuditLine.safeParse(raw);
    if (!parsed.success) return;
    const line = parsed.data;
    this.#entries[index] = {
      seq: index + 1,
      toolCallId: line.toolCallId,
      tool: line.toolName,
      status: line.status,
      ...(line.approvedBy !== undefined ? { approvedBy: line.approvedBy } : {}),
      durationMs: line.executionTimeMs,
      timestamp: line.timestamp,
      source: "log",
      search: `${searchText(line.toolName, line.toolCallId, line.params, line.error)} ${line.status} ${line.approvedBy ?? ""}`,
      offset: bufOffset + start,
      length: end - start,
    };
    this.#size++;
    this.#tools.add(line.toolName);
  }

  async #readLine(e: Entry): Promise<z.infer<typeof AuditLine> | undefined> {
    if (!this.#logPath || e.offset === undefined || e.length === undefined) return undefined;
    const handle = await open(this.#logPath, "r").catch(() => undefined);
    if (!handle) return undefined;
    try {
      const buf = Buffer.alloc(e.length);
      const { bytesRead } = await handle.read(buf, 0, e.length, e.offset);
      const parsed = AuditLine.safeParse(JSON.parse(buf.toString("utf8", 0, bytesRead)));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    } finally {
      await handle.close();
    }
  }
}

function summary(e: Entry): HistorySummary {
  return {
    seq: e.seq,
    toolCallId: e.toolCallId,
    tool: e.tool,
    status: e.status,
    ...(e.approvedBy !== undefined ? { approvedBy: e.approvedBy } : {}),
    ...(e.durationMs !== undefined ? { durationMs: e.durationMs } : {}),
    timestamp: e.timestamp,
    source: e.source,
  };
}

function searchText(tool: string, id: string, args: unknown, error: string | undefined): string {
  let argsText = "";
  try {
    argsText = typeof args === "string" ? args : (JSON.stringify(args) ?? "");
  } catch {
    // arguments that cannot be shown are not searched
  }
  return `${tool} ${id} ${argsText.slice(0, SEARCH_CHARS)} ${(error ?? "").slice(0, 200)}`.toLowerCase();
}

/** An event's data as kept with its call: long output cut, the call's own fields left out. */
function eventData(event: ToolEvent | ApprovalEvent): unknown {
  const { type: _type, toolCallId: _id, tool: _tool, ...rest } = event as unknown as Record<string, unknown>;
  if (typeof rest.chunk === "string" && rest.chunk.length > EVENT_TEXT_CHARS) rest.chunk = `${rest.chunk.slice(0, EVENT_TEXT_CHARS)}…`;
  if (event.type === "tool.result") {
    const o = event.outcome;
    return { status: o.status, executionTimeMs: o.executionTimeMs, ...(o.approvedBy ? { approvedBy: o.approvedBy } : {}) };
  }
  if (event.type === "approval.requested") {
    const { preview: _p, args: _a, ...short } = rest;
    return short;
  }
  return rest;
}

/**
 * Where each complete line of the log starts, plus where the next would: only what was there at
 * start-up (later lines are this server's calls, already followed live). A last line without its
 * newline may be half written; it is left out rather than misread.
 */
async function lineStarts(file: string): Promise<number[]> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return [0]; // no log yet: nothing earlier to show
  }
  const starts = [0];
  if (size === 0) return starts;
  let base = 0;
  try {
    const stream = createReadStream(file, { start: 0, end: size - 1, highWaterMark: 1 << 20 });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, nl + 1)) starts.push(base + nl + 1);
      base += chunk.length;
    }
  } catch {
    // unreadable: the lines counted so far are all there is to show
  }
  return starts;
}
