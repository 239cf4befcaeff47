import { statSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { ToolError } from "../../core/errors.js";
import { raceAbort } from "../../runtime/race-abort.js";
import { yielder } from "./yielder.js";

/** A file and when it was last modified (milliseconds since the epoch). */
export interface TimedPath {
  path: string;
  mtime: number;
}

const BATCH = 512;

// Plain script, no imports of tackle's: it runs the same from source, from dist and from the
// bundled command. NaN marks a file that vanished between listing and stat.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { statSync } = require("node:fs");
parentPort.on("message", ({ id, prefix, joined }) => {
  const paths = joined.split("\\0");
  const times = new Float64Array(paths.length);
  for (let i = 0; i < paths.length; i++) {
    const st = statSync(prefix + paths[i], { throwIfNoEntry: false });
    times[i] = st ? st.mtimeMs : NaN;
  }
  parentPort.postMessage({ id, times }, [times.buffer]);
});
`;

type Reply = { id: number; times: Float64Array };

// Two threads: a stat costs about 2 µs, so 30,000 files are 60 ms of stats, more than walking
// their folders takes; split, the stats finish about when the walk does.
const THREADS = 2;
let threads: Worker[] | null | undefined;
let nextId = 0;
const waiting = new Map<number, (times: Float64Array | undefined) => void>();

/**
 * The stat threads, started on first use and kept (holding the process open only while a
 * request waits): a thread costs about 30 ms to start, more than the stats of a few thousand files.
 */
function statThreads(): Worker[] | null {
  if (threads !== undefined) return threads;
  try {
    const started: Worker[] = [];
    for (let i = 0; i < THREADS; i++) {
      const w = new Worker(WORKER_SOURCE, { eval: true });
      w.unref();
      w.on("message", ({ id, times }: Reply) => {
        waiting.get(id)?.(times);
        waiting.delete(id);
        // The threads hold the process open only while some request waits.
        if (waiting.size === 0) for (const t of started) t.unref();
      });
      const lost = () => {
        threads = null;
        for (const settle of waiting.values()) settle(undefined);
        waiting.clear();
        for (const other of started) void other.terminate();
      };
      w.on("error", lost);
      w.on("exit", lost);
      started.push(w);
    }
    threads = started;
  } catch {
    threads = null;
  }
  return threads;
}

/**
 * Modification times of files under `base`, read on other threads while the caller is still
 * finding the files: `add` each path as it is found, then `done()`. Newest-first order then
 * costs the main thread no stat per file. Where no thread can be started, or one fails, the
 * stats run here, in short slices.
 */
export class ModifiedTimes {
  readonly #prefix: string;
  readonly #signal: AbortSignal;
  #batch: string[] = [];
  readonly #sent: Array<{ paths: string[]; times: Promise<Float64Array | undefined> }> = [];

  constructor(base: string, signal: AbortSignal) {
    this.#prefix = base.endsWith("/") ? base : `${base}/`;
    this.#signal = signal;
  }

  /** A path relative to `base`. */
  add(path: string): void {
    this.#batch.push(path);
    if (this.#batch.length >= BATCH) this.#send();
  }

  /** The times of every added file that still exists. */
  async done(): Promise<FileTimes> {
    this.#send();
    const paths: string[] = [];
    const times: number[] = [];
    const pause = yielder(this.#signal);
    for (const batch of this.#sent) {
      // The stat threads only ever resolve, so a rejection is the call being cancelled.
      const read = await raceAbort(batch.times, this.#signal).catch(() => {
        throw new ToolError("CANCELLED", "The search was cancelled.");
      });
      for (let i = 0; i < batch.paths.length; i++) {
        let mtime: number;
        if (read) mtime = read[i]!;
        else {
          const wait = pause();
          if (wait) await wait;
          mtime = statSync(this.#prefix + batch.paths[i]!, { throwIfNoEntry: false })?.mtimeMs ?? NaN;
        }
        if (Number.isNaN(mtime)) continue;
        paths.push(batch.paths[i]!);
        times.push(mtime);
      }
    }
    return new FileTimes(paths, times);
  }

  #send(): void {
    if (this.#batch.length === 0) return;
    const paths = this.#batch;
    this.#batch = [];
    const pool = statThreads();
    if (!pool) {
      this.#sent.push({ paths, times: Promise.resolve(undefined) });
      return;
    }
    const id = nextId++;
    const worker = pool[id % pool.length]!;
    const times = new Promise<Float64Array | undefined>((settle) => waiting.set(id, settle));
    worker.ref();
    this.#sent.push({ paths, times });
    // One string, not an array of them: copying it to the thread is a fraction of the cost.
    worker.postMessage({ id, prefix: this.#prefix, joined: paths.join("\0") });
  }
}

const byNewest = (a: TimedPath, b: TimedPath) => b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Files and their times, as ModifiedTimes found them. */
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
