/** A file and when it was last modified (milliseconds since the epoch). */
export interface TimedPath {
  path: string;
  mtime: number;
}

const byNewest = (a: TimedPath, b: TimedPath) => b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Files and their modification times, from which the newest are taken. */
export class FileTimes {
  readonly #paths: readonly string[];
  readonly #times: readonly number[];

  constructor(paths: readonly string[], times: readonly number[]) {
    this.#paths = paths;
    this.#times = times;
  }

  get size(): number {
    return this.#paths.length;
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
