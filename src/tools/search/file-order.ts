import { statOrUndefined } from "../../workspace/stat.js";

/** How glob orders what it finds: most recently modified first, or by path. */
export type FileOrder = "modified" | "path";

/**
 * Most matches glob puts newest first when the call does not choose an order. Beyond it the
 * answer comes by path: ordering by time reads every match's time (about 2 µs of kernel time a
 * file here), which on a large tree costs more than listing it, and fd, the anchor, reads none.
 */
export const NEWEST_FIRST_UP_TO = 5000;

/** The order a call gets: the one it asked for, else newest first unless more than {@link NEWEST_FIRST_UP_TO} files match. */
export function orderFor(asked: FileOrder | undefined, total: number): FileOrder {
  return asked ?? (total <= NEWEST_FIRST_UP_TO ? "modified" : "path");
}

/** A file and when it was last modified (milliseconds since the epoch). */
export interface TimedPath {
  path: string;
  mtime: number;
}

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byNewest = (a: TimedPath, b: TimedPath) => b.mtime - a.mtime || byPath(a.path, b.path);

/** The first `count` of `paths` in path order (by UTF-16 code unit, as ties in {@link FileTimes} are). */
export function firstByPath(paths: readonly string[], count: number): string[] {
  return [...paths].sort(byPath).slice(0, count);
}

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
    const st = statOrUndefined(absolute);
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
