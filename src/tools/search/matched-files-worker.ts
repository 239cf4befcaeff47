// A thread of MatchedFiles (matched-files.ts): walks the folders it is handed and keeps the files
// the filter matches, so the walk does not run on the main thread. At the end it reads their times
// if the answer is newest first, and sends back only its first files.
import { parentPort } from "node:worker_threads";
import { FileTimes, firstByPath, type FileOrder } from "./file-order.js";
import { makeLevel, type IgnoreLevel, type LevelSource } from "./gitignore.js";
import { globMatcher } from "./glob-match.js";
import {
  claimHungry,
  CONTROL,
  folderSource,
  type FolderSource,
  type Setup,
  type WorkerReply,
  type WorkerRequest,
} from "./matched-files-protocol.js";
import { readFolder, type Folder } from "./walk.js";

const port = parentPort!;
const reply = (message: WorkerReply) => port.postMessage(message);

/** This thread's part of one request. */
class Part {
  handled = 0;
  readonly #id: number;
  readonly #base: string;
  readonly #match: (relative: string) => boolean;
  readonly #control: Int32Array;
  /** Matched files whose times are not read yet, relative to the base. */
  readonly #found: string[] = [];
  /** Matched files and their times, read as they are found when newest first was asked for. */
  readonly #timed = new FileTimes();
  readonly #timeAsFound: boolean;
  /** Levels rebuilt from their sources, by directory: folders sent together share theirs. */
  readonly #levels = new Map<string, IgnoreLevel>();

  constructor(id: number, setup: Setup) {
    this.#id = id;
    this.#base = setup.base;
    this.#match = globMatcher(setup.filter);
    this.#control = new Int32Array(setup.control);
    this.#timeAsFound = setup.order === "modified";
  }

  get cancelled(): boolean {
    return Atomics.load(this.#control, CONTROL.cancelled) !== 0;
  }

  /** Depth first; while another worker is hungry, the shallowest half of what is left goes to it. */
  walk(sources: FolderSource[]): void {
    const stack = sources.map((s) => this.#folder(s));
    const onFolder = (folder: Folder) => void stack.push(folder);
    const onFile = (absolute: string) => {
      const relative = absolute.slice(this.#base.length);
      if (this.#match(relative)) this.#hold(absolute, relative);
    };
    while (stack.length > 0 && !this.cancelled) {
      // A folder that cannot be read is skipped, as ripgrep does; the root was read on the main thread.
      readFolder(stack.pop()!, onFile, onFolder);
      if (stack.length > 1 && claimHungry(this.#control)) {
        reply({ id: this.#id, shared: stack.splice(0, stack.length >> 1).map(folderSource) });
      }
    }
  }

  keep(joined: string): void {
    for (const relative of joined.split("\0")) {
      if (this.cancelled) return;
      this.#hold(this.#base + relative, relative);
    }
  }

  /** Files held; with times read as found, those that still existed. */
  get held(): number {
    return this.#found.length + this.#timed.size;
  }

  finish(count: number, order: FileOrder): WorkerReply {
    // Path order is only ever chosen for a request that did not ask for newest first, whose times were not read.
    if (order === "path") return { id: this.#id, total: this.#found.length, first: firstByPath(this.#found, count) };
    for (const relative of this.#found.splice(0)) {
      if (this.cancelled) break;
      this.#timed.stamp(this.#base + relative, relative);
    }
    const newest = this.#timed.newest(count);
    return { id: this.#id, total: this.#timed.size, first: newest.map((f) => f.path), times: newest.map((f) => f.mtime) };
  }

  #hold(absolute: string, relative: string): void {
    if (this.#timeAsFound) this.#timed.stamp(absolute, relative);
    else this.#found.push(relative);
  }

  #folder(source: FolderSource): Folder {
    return { dir: source.dir, levels: source.levels.map((s) => this.#level(s)) };
  }

  #level(source: LevelSource): IgnoreLevel {
    let level = this.#levels.get(source.dir);
    if (!level) {
      // A source is only made for a level that holds something, so one is built.
      level = makeLevel(source.dir, source.texts, source.hasGit)!;
      this.#levels.set(source.dir, level);
    }
    return level;
  }
}

const parts = new Map<number, Part>();

port.on("message", (message: WorkerRequest) => {
  const { id } = message;
  if ("drop" in message) {
    parts.delete(id);
    return;
  }
  if ("finish" in message) {
    const part = parts.get(id);
    parts.delete(id);
    reply(part ? part.finish(message.finish.count, message.finish.order) : { id, total: 0, first: [] });
    return;
  }
  let part = parts.get(id);
  if (!part) {
    part = new Part(id, message.setup!);
    parts.set(id, part);
  }
  if ("folders" in message) part.walk(message.folders);
  else part.keep(message.paths);
  part.handled++;
  reply({ id, idle: part.handled, held: part.held });
});
