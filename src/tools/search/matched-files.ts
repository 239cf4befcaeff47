import type { Worker } from "node:worker_threads";
import { ToolError } from "../../core/errors.js";
import { raceAbort } from "../../core/race-abort.js";
import { FileTimes, firstByPath, orderFor, type FileOrder } from "./file-order.js";
import { globMatcher, type GlobFilter } from "./glob-match.js";
import {
  claimHungry,
  CONTROL,
  folderSource,
  type FolderSource,
  type Setup,
  type WorkerReply,
  type WorkerRequest,
} from "./matched-files-protocol.js";
import { ancestorLevels, readFolder, walkFiles, type Folder } from "./walk.js";
import { startWorker, workerScript } from "./worker-script.js";
import { yielder } from "../yielder.js";

/** How many files matched in all, and the first of them (paths relative to the base) in `order`. */
export interface Matches {
  total: number;
  order: FileOrder;
  first: string[];
}

/** Paths sent to a thread at a time when a list is given rather than walked, or found by the main thread's first folders. */
const BATCH = 512;
/**
 * Entries (files and folders) a walk reads on the main thread before it hands the rest to the
 * threads: a tree this small is walked (and its times read) here sooner than the threads answer.
 */
export const WALKED_HERE = 1000;

// Two threads: on two cores bench/search.bench.ts walks and stats 30,000 files in about 43 ms
// with two, 83 ms with one, and no faster with three (a stat costs about 2 µs either way).
const THREADS = 2;
let threads: Worker[] | null | undefined;
/** Replies each thread owes: a thread holds the process open only while it owes one. */
let owed: number[] = [];
let nextId = 0;
const running = new Map<number, Request>();

/**
 * The threads, started on first use and kept: a thread costs about 30 ms to start, more than
 * walking a few thousand files. When one fails, all go, and the work runs on the main thread.
 */
function pool(): Worker[] | null {
  if (threads !== undefined) return threads;
  const script = workerScript("matched-files-worker");
  if (!script) return (threads = null);
  const started: Worker[] = [];
  try {
    for (let i = 0; i < THREADS; i++) {
      const worker = startWorker(script);
      worker.on("message", (reply: WorkerReply) => {
        if (!("shared" in reply) && --owed[i]! === 0) worker.unref();
        running.get(reply.id)?.onReply(i, reply);
      });
      const lost = () => {
        threads = null;
        for (const request of running.values()) request.lose();
        for (const other of started) void other.terminate();
      };
      worker.on("error", lost);
      worker.on("exit", lost);
      // After the listeners: adding one holds the process again.
      worker.unref();
      started.push(worker);
    }
  } catch {
    for (const worker of started) void worker.terminate();
    return (threads = null);
  }
  owed = started.map(() => 0);
  return (threads = started);
}

/**
 * One walk or list handed to the threads. Every thread starts hungry; folders are spread over
 * them, and a thread with folders to spare sends some back for a hungry one (see
 * {@link CONTROL}). Once all is given and every thread has handled all it was sent, the order is
 * chosen from how many files they hold; each thread sends its first files in that order, and the
 * first of those are the answer.
 */
class Request {
  readonly id = nextId++;
  /** The answer; `undefined` if the threads were lost. */
  readonly result: Promise<Matches | undefined>;
  readonly #threads: Worker[];
  readonly #setup: Setup;
  readonly #control: Int32Array;
  readonly #count: number;
  readonly #order: FileOrder | undefined;
  readonly #sent: number[];
  readonly #handled: number[];
  /** Files each thread holds, as of its last idle reply. */
  readonly #held: number[];
  readonly #hungry = new Set<number>();
  /** Spared folders no thread was hungry for yet. */
  readonly #spare: FolderSource[] = [];
  #next = 0;
  #given = false;
  #answers: Array<Extract<WorkerReply, { total: number }>> | undefined;
  #answerOrder: FileOrder = "modified";
  #expected = 0;
  #settle!: (found: Matches | undefined) => void;

  constructor(threads: Worker[], base: string, filter: GlobFilter, count: number, order: FileOrder | undefined) {
    this.#threads = threads;
    this.#setup = { base, filter, order, control: new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT) };
    this.#control = new Int32Array(this.#setup.control);
    this.#count = count;
    this.#order = order;
    this.#sent = threads.map(() => 0);
    this.#handled = threads.map(() => 0);
    this.#held = threads.map(() => 0);
    threads.forEach((_, i) => this.#hungry.add(i));
    Atomics.store(this.#control, CONTROL.hungry, threads.length);
    this.result = new Promise((settle) => (this.#settle = settle));
    running.set(this.id, this);
  }

  walk(folders: FolderSource[]): void {
    const n = this.#threads.length;
    for (let i = 0; i < n; i++) {
      const share = folders.filter((_, k) => k % n === i);
      if (share.length > 0) this.#post(i, { folders: share });
    }
  }

  keep(paths: string[]): void {
    // One string, not an array of them: copying it to the thread is a fraction of the cost.
    this.#post(this.#next++ % this.#threads.length, { paths: paths.join("\0") });
  }

  /** Everything to walk or keep has been given. */
  end(): void {
    this.#given = true;
    this.#finishIfIdle();
  }

  onReply(thread: number, reply: WorkerReply): void {
    if ("shared" in reply) {
      const [hungry] = this.#hungry;
      // A loop, not a spread: a folder of 200,000 entries is more arguments than a call takes.
      if (hungry === undefined) for (const folder of reply.shared) this.#spare.push(folder);
      else {
        // The thread that spared these counted the hungry one down already.
        this.#hungry.delete(hungry);
        this.#post(hungry, { folders: reply.shared });
      }
    } else if ("idle" in reply) {
      this.#handled[thread] = reply.idle;
      this.#held[thread] = reply.held;
      if (reply.idle !== this.#sent[thread]) return;
      if (this.#spare.length > 0) this.#post(thread, { folders: this.#spare.splice(0) });
      else {
        this.#hungry.add(thread);
        Atomics.add(this.#control, CONTROL.hungry, 1);
        this.#finishIfIdle();
      }
    } else {
      this.#answers!.push(reply);
      if (this.#answers!.length === this.#expected) this.#answer();
    }
  }

  /** The threads are gone: the caller does the work itself. */
  lose(): void {
    running.delete(this.id);
    this.#settle(undefined);
  }

  /** Stops the threads' work on this request and lets them forget it. */
  cancel(): void {
    if (!running.delete(this.id)) return;
    Atomics.store(this.#control, CONTROL.cancelled, 1);
    this.#threads.forEach((thread, i) => {
      if (this.#sent[i]! > 0) thread.postMessage({ id: this.id, drop: true } satisfies WorkerRequest);
    });
  }

  #post(thread: number, body: { folders: FolderSource[] } | { paths: string }): void {
    // Given work by this thread, a hungry thread no longer waits for another's.
    if (this.#hungry.delete(thread)) claimHungry(this.#control);
    const message: WorkerRequest = { id: this.id, ...body, ...(this.#sent[thread] === 0 ? { setup: this.#setup } : {}) };
    this.#sent[thread]!++;
    this.#send(thread, message);
  }

  #send(thread: number, message: WorkerRequest): void {
    // Answered, cancelled or lost: nothing more goes out.
    if (!running.has(this.id)) return;
    if (owed[thread]!++ === 0) this.#threads[thread]!.ref();
    this.#threads[thread]!.postMessage(message);
  }

  #finishIfIdle(): void {
    if (!this.#given || this.#answers || this.#spare.length > 0) return;
    if (this.#sent.some((sent, i) => sent !== this.#handled[i])) return;
    this.#answers = [];
    const total = this.#held.reduce((sum, held) => sum + held, 0);
    this.#answerOrder = orderFor(this.#order, total);
    const finish = { count: this.#count, order: this.#answerOrder };
    this.#sent.forEach((sent, i) => {
      if (sent === 0) return;
      this.#expected++;
      this.#send(i, { id: this.id, finish });
    });
    if (this.#expected === 0) this.#answer();
  }

  #answer(): void {
    running.delete(this.id);
    let total = 0;
    const order = this.#answerOrder;
    if (order === "path") {
      const first: string[] = [];
      for (const answer of this.#answers!) {
        total += answer.total;
        for (const f of answer.first) first.push(f);
      }
      this.#settle({ total, order, first: firstByPath(first, this.#count) });
      return;
    }
    const found = new FileTimes();
    for (const answer of this.#answers!) {
      total += answer.total;
      answer.first.forEach((f, i) => found.add(f, answer.times![i]!));
    }
    this.#settle({ total, order, first: found.newest(this.#count).map((f) => f.path) });
  }
}

/**
 * The files under `base` that glob's filter matches, newest first or by path: walked with
 * {@link walk}, or listed one by one with {@link add}; then {@link done}. The walk runs on other
 * threads while the main thread is free, and so do the reads of the files' times when the
 * answer is newest first. Where no thread can be started, or one fails, the work runs here, in
 * short slices. {@link close} lets the threads drop an unfinished request.
 */
export class MatchedFiles {
  readonly #base: string;
  readonly #filter: GlobFilter;
  readonly #match: (relative: string) => boolean;
  readonly #signal: AbortSignal;
  readonly #count: number;
  readonly #order: FileOrder | undefined;
  /** The directory walked, walked again here if the threads fail. */
  #walked: string | undefined;
  /** Files given by add() or found by the walk's first folders, used here if the threads fail. */
  readonly #listed: string[] = [];
  #batch: string[] = [];
  #request: Request | null | undefined;

  /**
   * Throws if the filter's pattern is not a valid glob. `count`: how many files are wanted;
   * `order`: theirs, or absent for the one {@link orderFor} picks from how many match.
   */
  constructor(base: string, filter: GlobFilter, count: number, signal: AbortSignal, order?: FileOrder) {
    this.#base = base.endsWith("/") ? base : `${base}/`;
    this.#filter = filter;
    this.#match = globMatcher(filter);
    this.#count = count;
    this.#signal = signal;
    this.#order = order;
  }

  /**
   * Walks `dir` (absolute, real, inside the base) as {@link walkFiles} does. Its first folders
   * are read here, breadth first, so that a directory that cannot be read fails the same way,
   * and a small tree is done without the threads' round trips; the rest is walked on the threads.
   */
  walk(dir: string): void {
    const found: string[] = [];
    const folders: Folder[] = [{ dir, levels: ancestorLevels(dir) }];
    let entries = 0;
    let read = 0;
    const onFile = (absolute: string) => {
      entries++;
      const relative = this.#matched(absolute);
      if (relative !== undefined) found.push(relative);
    };
    const onFolder = (folder: Folder) => {
      entries++;
      folders.push(folder);
    };
    while (read < folders.length && entries < WALKED_HERE) {
      const failed = readFolder(folders[read++]!, onFile, onFolder);
      if (failed && read === 1) throw failed;
    }
    if (read === folders.length) {
      for (const relative of found) this.#listed.push(relative);
      return;
    }
    this.#walked = dir;
    const request = this.#started();
    if (!request) return;
    for (const relative of found) this.#keep(request, relative);
    request.walk(folders.slice(read).map(folderSource));
  }

  /** A listed file, relative to the base; kept if the filter matches it. */
  add(relative: string): void {
    if (!this.#match(relative)) return;
    this.#listed.push(relative);
    const request = this.#started();
    if (request) this.#keep(request, relative);
  }

  /** How many files matched and the first `count` of them; newest first counts only those that still exist. */
  async done(): Promise<Matches> {
    const request = this.#request;
    if (request) {
      if (this.#batch.length > 0) request.keep(this.#batch.splice(0));
      request.end();
      // The threads only ever resolve, so a rejection is the call being cancelled.
      const found = await raceAbort(request.result, this.#signal).catch(() => {
        request.cancel();
        throw new ToolError("CANCELLED", "The search was cancelled.");
      });
      if (found) return found;
    }
    return this.#here();
  }

  close(): void {
    this.#request?.cancel();
  }

  #started(): Request | null {
    if (this.#request === undefined) {
      const threads = pool();
      this.#request = threads && new Request(threads, this.#base, this.#filter, this.#count, this.#order);
    }
    return this.#request;
  }

  /** A walked file's path relative to the base, if the filter keeps it. */
  #matched(absolute: string): string | undefined {
    const relative = absolute.slice(this.#base.length);
    return this.#match(relative) ? relative : undefined;
  }

  #keep(request: Request, relative: string): void {
    this.#batch.push(relative);
    if (this.#batch.length >= BATCH) request.keep(this.#batch.splice(0));
  }

  async #here(): Promise<Matches> {
    const relatives = [...this.#listed];
    if (this.#walked !== undefined) {
      await walkFiles(this.#walked, {
        signal: this.#signal,
        onFile: (absolute) => {
          const relative = this.#matched(absolute);
          if (relative !== undefined) relatives.push(relative);
        },
      });
    }
    const order = orderFor(this.#order, relatives.length);
    if (order === "path") return { total: relatives.length, order, first: firstByPath(relatives, this.#count) };
    const pause = yielder(this.#signal);
    const found = new FileTimes();
    for (const relative of relatives) {
      const wait = pause();
      if (wait) await wait;
      found.stamp(this.#base + relative, relative);
    }
    return { total: found.size, order, first: found.newest(this.#count).map((f) => f.path) };
  }
}
