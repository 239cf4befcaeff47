import { statSync } from "node:fs";
import path from "node:path";
import type { ToolOutcome } from "../core/result.js";
import { anyOverlap, EVERYTHING } from "./paths-overlap.js";

export interface CacheOptions {
  /** How long a result stays fresh. Default 60 s. */
  ttlMs: number;
  /** Most results kept. Default 500. */
  maxEntries: number;
  /**
   * Most characters kept, all results together: their text, the strings of their structured output
   * and their blocks (an image's base64). Default 32 Mi; a result over a quarter of it is not kept.
   */
  maxChars: number;
}

export const DEFAULT_CACHE: CacheOptions = { ttlMs: 60_000, maxEntries: 500, maxChars: 32 * 1024 * 1024 };

interface CacheEntry {
  outcome: ToolOutcome;
  expires: number;
  reads: string[];
  /** mtime and size of each read path when cached: a change made outside tackle also invalidates. */
  stamps: Array<[string, string]>;
  chars: number;
}

/**
 * Results of read-only calls, keyed by tool and arguments. Writes through tackle invalidate
 * overlapping entries; a file changed behind tackle's back is caught by its stamp. What it holds is
 * bounded by count and by size, and expired results go as new ones come: counted in entries alone,
 * a session that read screenshots kept 500 of them, some 3 GB, for as long as it ran.
 */
export class ResultCache {
  readonly #entries = new Map<string, CacheEntry>();
  readonly #options: CacheOptions;
  readonly #root: string;
  #chars = 0;

  constructor(root: string, options: CacheOptions) {
    this.#root = root;
    this.#options = options;
  }

  async get(key: string): Promise<ToolOutcome | undefined> {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expires < Date.now() || !this.#fresh(entry)) {
      this.#drop(key, entry);
      return undefined;
    }
    return entry.outcome;
  }

  async set(key: string, outcome: ToolOutcome, reads: string[]): Promise<void> {
    const old = this.#entries.get(key);
    if (old) this.#drop(key, old);
    // A folder's stamp changes when entries come and go, not when a file deep inside is edited:
    // a search or listing over one could not tell it went stale, so it is not kept at all.
    if (reads.includes(EVERYTHING)) return;
    const stamps: Array<[string, string]> = [];
    for (const r of reads) {
      const stamp = this.#stamp(r);
      if (stamp.startsWith("dir:")) return;
      stamps.push([r, stamp]);
    }
    // Measured once it could be kept: a listing's thousands of names are never walked for nothing.
    const chars = charsOf(outcome, this.#options.maxChars / 4);
    if (chars > this.#options.maxChars / 4) return;
    // Entries go in the order they were made, each as long as the last: the oldest leave first,
    // and expired ones lead the way.
    const now = Date.now();
    for (const [oldest, entry] of this.#entries) {
      const full = this.#entries.size >= this.#options.maxEntries || this.#chars + chars > this.#options.maxChars;
      if (!full && entry.expires >= now) break;
      this.#drop(oldest, entry);
    }
    this.#entries.set(key, { outcome, expires: now + this.#options.ttlMs, reads, stamps, chars });
    this.#chars += chars;
  }

  /** Drops entries that read any of `paths` (or everything, for "*"). */
  invalidate(paths: readonly string[]): void {
    if (paths.length === 0) return;
    for (const [key, entry] of this.#entries) {
      if (entry.reads.length === 0 || anyOverlap(entry.reads, paths)) this.#drop(key, entry);
    }
  }

  clear(): void {
    this.#entries.clear();
    this.#chars = 0;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Characters the kept results hold together (see {@link CacheOptions.maxChars}). */
  get chars(): number {
    return this.#chars;
  }

  #drop(key: string, entry: CacheEntry): void {
    this.#entries.delete(key);
    this.#chars -= entry.chars;
  }

  #fresh(entry: CacheEntry): boolean {
    for (const [p, stamp] of entry.stamps) if (this.#stamp(p) !== stamp) return false;
    return true;
  }

  /**
   * A path's mtime, size and inode. Read with one stat(2) on this thread: a hit is worth having only
   * if it costs less than the read it saves, and a trip through the thread pool (a queue, a thread,
   * a promise) cost more than the stat itself, most of a cached read's time under load.
   */
  #stamp(relative: string): string {
    try {
      const s = statSync(path.resolve(this.#root, relative), { throwIfNoEntry: false });
      if (!s) return "missing";
      return `${s.isDirectory() ? "dir:" : ""}${s.mtimeMs}:${s.size}:${s.ino}`;
    } catch {
      return "missing";
    }
  }
}

/**
 * The characters an outcome holds: its text, and every string in its structured output and blocks.
 * The walk stops once past `limit`, so a result too large to keep is not measured to its end.
 */
function charsOf(outcome: ToolOutcome, limit: number): number {
  let chars = outcome.content.length + (outcome.displayContent?.length ?? 0);
  const pending: unknown[] = [outcome.structured, outcome.blocks];
  while (pending.length > 0 && chars <= limit) {
    const value = pending.pop();
    if (typeof value === "string") chars += value.length;
    else if (value !== null && typeof value === "object")
      for (const item of Array.isArray(value) ? value : Object.values(value)) pending.push(item);
  }
  return chars;
}

/** A key independent of property order. */
export function cacheKey(tool: string, args: unknown): string {
  return `${tool}\u0000${stableStringify(args)}`;
}

function stableStringify(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k])}`).join(",")}}`;
}
