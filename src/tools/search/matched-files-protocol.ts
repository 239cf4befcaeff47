import type { FileOrder } from "./file-order.js";
import type { LevelSource } from "./gitignore.js";
import type { GlobFilter } from "./glob-match.js";
import type { Folder } from "./walk.js";

/** A folder still to be walked, as sent between threads. */
export interface FolderSource {
  dir: string;
  levels: LevelSource[];
}

export function folderSource(folder: Folder): FolderSource {
  return { dir: folder.dir, levels: folder.levels.map((level) => level.source) };
}

/** Slots of a request's shared Int32Array. */
export const CONTROL = {
  /** Set once the request is cancelled: the workers drop what is left. */
  cancelled: 0,
  /** How many workers wait for work: a worker with folders to spare sends some and counts one down. */
  hungry: 1,
} as const;

/** Counts one hungry worker down, if any is still waiting (then the caller owes it work). */
export function claimHungry(control: Int32Array): boolean {
  for (let n = Atomics.load(control, CONTROL.hungry); n > 0; n = Atomics.load(control, CONTROL.hungry)) {
    if (Atomics.compareExchange(control, CONTROL.hungry, n, n - 1) === n) return true;
  }
  return false;
}

/** What a worker needs to know of a request, sent with the first message of it the worker gets. */
export interface Setup {
  /** Absolute directory the paths are relative to, ending in "/". */
  base: string;
  filter: GlobFilter;
  control: SharedArrayBuffer;
  /** The order asked for, if any: with "modified" each file's time is read as it is found, not at the end. */
  order?: FileOrder;
}

/**
 * To a worker: walk folders (keeping the files the filter matches), or keep files already
 * matched ("\0"-joined paths relative to the base), for request `id`; then `finish` it (answer
 * with the first `count` of its files in `order`, reading their times only for "modified") or
 * `drop` it.
 */
export type WorkerRequest =
  | { id: number; setup?: Setup; folders: FolderSource[] }
  | { id: number; setup?: Setup; paths: string }
  | { id: number; finish: { count: number; order: FileOrder } }
  | { id: number; drop: true };

/**
 * From a worker: folders it spares for a hungry one; `idle` after each walk or keep message, with
 * how many of the request's messages it has handled and how many files it holds; after `finish`,
 * how many of its files count (for "modified", those that still exist) and its first ones, with
 * their times for "modified".
 */
export type WorkerReply =
  | { id: number; shared: FolderSource[] }
  | { id: number; idle: number; held: number }
  | { id: number; total: number; first: string[]; times?: number[] };
