/** One matching line. */
export interface GrepHit {
  /** Relative to the search's root directory (the workspace root), "/"-separated. */
  path: string;
  /** 1-based. */
  line: number;
  /** The line without its line terminator. */
  text: string;
  /** Where the first match starts in `text` (UTF-16 index); only needed for long lines. */
  column: number;
}

function before(a: GrepHit, b: GrepHit): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return a.line - b.line;
}

/**
 * Keeps the first `limit` hits in (path, line) order, whatever order they arrive in, while
 * counting them all. Backends finish files in any order (ripgrep is parallel); sorting makes
 * both backends print the same lines. Memory stays near 2 × limit.
 */
export class HitCollector {
  readonly limit: number;
  total = 0;
  readonly #files = new Set<string>();
  #hits: GrepHit[] = [];

  constructor(limit: number) {
    this.limit = limit;
  }

  add(hit: GrepHit): void {
    this.total++;
    this.#files.add(hit.path);
    this.#hits.push(hit);
    if (this.#hits.length >= this.limit * 2 + 1024) this.#trim();
  }

  get fileCount(): number {
    return this.#files.size + this.#extraFiles;
  }

  #extraFiles = 0;

  /** A collector holding a result computed elsewhere (a worker thread). */
  static from(limit: number, done: { hits: GrepHit[]; total: number; files: number }): HitCollector {
    const c = new HitCollector(limit);
    c.#hits = done.hits.slice(0, limit);
    c.total = done.total;
    c.#extraFiles = done.files;
    return c;
  }

  #trim(): void {
    this.#hits.sort(before);
    this.#hits.length = Math.min(this.#hits.length, this.limit);
  }

  /** The first `limit` hits, sorted. */
  result(): GrepHit[] {
    this.#trim();
    return this.#hits;
  }
}

/** Longest line shown whole; longer ones are cut around their first match. */
export const MAX_LINE_CHARS = 300;
const CONTEXT_BEFORE = 60;

/** A line as shown: long lines are cut to a window around the first match, saying so. */
export function displayLine(hit: GrepHit): string {
  const { text } = hit;
  if (text.length <= MAX_LINE_CHARS) return text;
  const start = Math.max(0, Math.min(hit.column - CONTEXT_BEFORE, text.length - MAX_LINE_CHARS));
  const end = start + MAX_LINE_CHARS;
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""} [line cut: ${text.length} characters]`;
}
