import { statSync } from "node:fs";

/** A file and when it was last modified (milliseconds since the epoch). */
export interface TimedPath {
  path: string;
  mtime: number;
}

const byNewest = (a: TimedPath, b: TimedPath) => b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
const NO_THROW = { throwIfNoEntry: false } as const;

/** Files and their modification times, from which the newest are taken. */
export class FileTimes {
  readonly #paths: string[] = [];
  readonly #times: number[] = [];

  get size(): number {
    return this.#paths.length;
  }

  /** A file whose time is known. */
  add(path: string, mtime: number): void {
    this.#paths.push(path);
    this.#times.push(mtime);
  }

  /** A file whose time is read now (`absolute`), kept as `relative`; one that vanished since it was listed is left out. */
  stamp(absolute: string, relative: string): void {
    const st = statSync(absolute, NO_THROW);
    if (st) this.add(relative, st.mtimeMs);
  }

  /**
   * The `count` newest files, newest first (ties by path). Of many files only those at least as
   * new as the count-th newest time are sorted: a numeric sort of the times finds it.
   */
  newest(count: number): TimedPath[] {
    const all = this.#paths.length;
    const threshold = all <= count ? -Infinity : Float64Array.from(this.#times).sort()[all - count]!;
    const picked: TimedPath[] = [];
    for (let i = 0; i < all; i++) if (this.#times[i]! >= threshold) picked.push({ path: this.#paths[i]!, mtime: this.#times[i]! });
    return picked.sort(byNewest).slice(0, count);
  }
}
