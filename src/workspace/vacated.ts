import { createHash } from "node:crypto";
import { appendFileSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tackleStateDir } from "./own-folders.js";

/*
 * Paths a move emptied. A move of an existing file needs no approval, and neither does writing a
 * new file; together they would replace the file's content unasked (move notes.txt away, write
 * notes.txt). So a path that held a file until a move took it counts as existing when it is
 * written: the write asks as an overwrite does. The record outlives the process (each
 * `tackle call` is one), kept per workspace in the user's state folder for a week.
 */

/** How long a vacated path stays one. */
const KEEP_MS = 7 * 24 * 3600 * 1000;
/** Past this size the record is rewritten with only what is still kept. */
const COMPACT_BYTES = 1024 * 1024;

interface Entry {
  p: string;
  t: number;
}

/** The record folder, once made and found private: write_file asks on every new file. */
let checked: string | undefined;

/** The record file for a workspace, in a folder only this user can write; undefined when there is none. */
function recordFile(root: string): string | undefined {
  const name = `${createHash("sha256").update(root).digest("hex").slice(0, 32)}.jsonl`;
  const dir = path.join(tackleStateDir(), "vacated");
  if (checked === dir) return path.join(dir, name);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    const uid = process.getuid?.();
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) return undefined;
    checked = dir;
    return path.join(dir, name);
  } catch {
    return undefined;
  }
}

function read(file: string): Entry[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const now = Date.now();
  const entries: Entry[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      const entry = JSON.parse(line) as Entry;
      if (typeof entry.p === "string" && typeof entry.t === "number" && now - entry.t < KEEP_MS) entries.push(entry);
    } catch {
      // a line cut by a crash: the others still count
    }
  }
  return entries;
}

/** The key a path is recorded under: relative to the workspace's root, "/"-separated. */
function keyOf(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join("/");
}

/** Records that a move emptied `absolute`, in the workspace at `root`. */
export function recordVacated(root: string, absolute: string): void {
  const relative = keyOf(root, absolute);
  const file = recordFile(root);
  if (!file) return;
  const line = `${JSON.stringify({ p: relative, t: Date.now() })}\n`;
  try {
    // One short append is one write: concurrent tackle processes do not interleave inside a line.
    appendFileSync(file, line, { mode: 0o600 });
    if (lstatSync(file).size > COMPACT_BYTES) {
      const kept = read(file);
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, kept.map((e) => JSON.stringify(e)).join("\n") + "\n", { mode: 0o600 });
      renameSync(temporary, file);
    }
  } catch {
    // Without a state folder the record is lost, and the write after a move is judged as a new file.
  }
}

/** Whether a move emptied `absolute`, or a folder holding it, within the last week. */
export function wasVacated(root: string, absolute: string): boolean {
  const relative = keyOf(root, absolute);
  const file = recordFile(root);
  if (!file) return false;
  return read(file).some((e) => relative === e.p || relative.startsWith(`${e.p}/`));
}
