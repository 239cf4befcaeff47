import type { TimedPath } from "./file-times.js";
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
}

/**
 * To a worker: walk folders (keeping files the filter matches), or read the times of files
 * already matched ("\0"-joined paths relative to the base), for request `id`; then `finish`
 * it (answer with the `finish` newest files) or `drop` it.
 */
export type WorkerRequest =
  | { id: number; setup?: Setup; folders: FolderSource[] }
  | { id: number; setup?: Setup; paths: string }
  | { id: number; finish: number }
  | { id: number; drop: true };

/**
 * From a worker: folders it spares for a hungry one; `idle` after each walk or stat message,
 * with how many of the request's messages it has handled; its newest files and how many
 * files it found, after `finish`.
 */
export type WorkerReply =
  { id: number; shared: FolderSource[] } | { id: number; idle: number } | { id: number; total: number; newest: TimedPath[] };
