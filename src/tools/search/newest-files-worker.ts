// A thread of NewestFiles (newest-files.ts): walks the folders it is handed and reads the
// modification time of every file it keeps, so neither the walk nor a stat per file runs on the
// main thread. Only its newest files go back.
import { parentPort } from "node:worker_threads";
import { FileTimes } from "./file-times.js";
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
} from "./newest-files-protocol.js";
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
  readonly #found = new FileTimes();
  /** Levels rebuilt from their sources, by directory: folders sent together share theirs. */
  readonly #levels = new Map<string, IgnoreLevel>();

  constructor(id: number, setup: Setup) {
    this.#id = id;
    this.#base = setup.base;
    this.#match = globMatcher(setup.filter);
    this.#control = new Int32Array(setup.control);
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
      if (this.#match(relative)) this.#found.stamp(absolute, relative);
    };
    while (stack.length > 0 && !this.cancelled) {
      // A folder that cannot be read is skipped, as ripgrep does; the root was read on the main thread.
      readFolder(stack.pop()!, onFile, onFolder);
      if (stack.length > 1 && claimHungry(this.#control)) {
        reply({ id: this.#id, shared: stack.splice(0, stack.length >> 1).map(folderSource) });
      }
    }
  }

  stat(joined: string): void {
    for (const relative of joined.split("\0")) {
      if (this.cancelled) return;
      this.#found.stamp(this.#base + relative, relative);
    }
  }

  finish(count: number): WorkerReply {
    return { id: this.#id, total: this.#found.size, newest: this.#found.newest(count) };
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
    reply(part ? part.finish(message.finish) : { id, total: 0, newest: [] });
    return;
  }
  let part = parts.get(id);
  if (!part) {
    part = new Part(id, message.setup!);
    parts.set(id, part);
  }
  if ("folders" in message) part.walk(message.folders);
  else part.stat(message.paths);
  part.handled++;
  reply({ id, idle: part.handled });
});
