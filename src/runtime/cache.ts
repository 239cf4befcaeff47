import { statSync } from "node:fs";
import path from "node:path";
import type { ToolOutcome } from "../core/result.js";
import { anyOverlap, EVERYTHING } from "./paths-overlap.js";

export interface CacheOptions {
  /** How long a result stays fresh. Default 60 s. */
  ttlMs: number;
  maxEntries: number;
}

export const DEFAULT_CACHE: CacheOptions = { ttlMs: 60_000, maxEntries: 500 };

interface CacheEntry {
  outcome: ToolOutcome;
  expires: number;
  reads: string[];
  /** mtime and size of each read path when cached: a change made outside tackle also invalidates. */
  stamps: Array<[string, string]>;
}

/**
 * Results of read-only calls, keyed by tool and arguments. Writes through tackle invalidate
 * overlapping entries; a file changed behind tackle's back is caught by its stamp.
 */
export class ResultCache {
  readonly #entries = new Map<string, CacheEntry>();
  readonly #options: CacheOptions;
  readonly #root: string;

  constructor(root: string, options: CacheOptions) {
    this.#root = root;
    this.#options = options;
  }

  async get(key: string): Promise<ToolOutcome | undefined> {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expires < Date.now() || !this.#fresh(entry)) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.outcome;
  }

  async set(key: string, outcome: ToolOutcome, reads: string[]): Promise<void> {
    if (this.#entries.size >= this.#options.maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    // A folder's stamp changes when entries come and go, not when a file deep inside is edited:
    // a search or listing over one could not tell it went stale, so it is not kept at all.
    if (reads.includes(EVERYTHING)) return;
    const stamps: Array<[string, string]> = [];
    for (const r of reads) {
      const stamp = this.#stamp(r);
      if (stamp.startsWith("dir:")) return;
      stamps.push([r, stamp]);
    }
    this.#entries.set(key, { outcome, expires: Date.now() + this.#options.ttlMs, reads, stamps });
  }

  /** Drops entries that read any of `paths` (or everything, for "*"). */
  invalidate(paths: readonly string[]): void {
    if (paths.length === 0) return;
    for (const [key, entry] of this.#entries) {
      if (entry.reads.length === 0 || anyOverlap(entry.reads, paths)) this.#entries.delete(key);
    }
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
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
