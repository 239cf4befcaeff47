import path from "node:path";
import { WorkspaceRecord } from "./workspace-record.js";

/*
 * Paths a move emptied. A move of an existing file needs no approval, and neither does writing a
 * new file; together they would replace the file's content unasked (move notes.txt away, write
 * notes.txt). So a path that held a file until a move took it counts as existing when it is
 * written: the write asks as an overwrite does. The record outlives the process (each
 * `tackle call` is one), kept per workspace in the user's state folder for a week.
 */

/** How long a vacated path stays one. */
const KEEP_MS = 7 * 24 * 3600 * 1000;

interface Entry {
  p: string;
  t: number;
}

const record = (root: string) => new WorkspaceRecord<Entry>("vacated", root, KEEP_MS, (e) => typeof e.p === "string");

/** The key a path is recorded under: relative to the workspace's root, "/"-separated. */
function keyOf(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join("/");
}

/** Records that a move emptied `absolute`, in the workspace at `root`. */
export function recordVacated(root: string, absolute: string): void {
  record(root).append({ p: keyOf(root, absolute), t: Date.now() });
}

/** Whether a move emptied `absolute`, or a folder holding it, within the last week. */
export function wasVacated(root: string, absolute: string): boolean {
  const relative = keyOf(root, absolute);
  return record(root)
    .entries()
    .some((e) => relative === e.p || relative.startsWith(`${e.p}/`));
}
