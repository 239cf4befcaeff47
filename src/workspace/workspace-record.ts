import { createHash } from "node:crypto";
import { lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { appendLines } from "./append-line.js";
import { ownFolder, replaceOwnFile, tackleStateDir } from "./own-folders.js";

/** Past this size a record is rewritten with only what is still kept. */
const COMPACT_BYTES = 1024 * 1024;

/** Folders already made and found private, so each is checked once per process. */
const checked = new Set<string>();

/**
 * A small per-workspace record that outlives the process (each `tackle call` is one): JSON lines
 * in `<state>/<kind>/<hash of the root>.jsonl`, in a folder only this user can write, each entry
 * kept for `keepMs` after its time `t`. Without a private state folder nothing is kept, and the
 * record reads as empty.
 */
export class WorkspaceRecord<E extends { t: number }> {
  readonly #file: string | undefined;

  constructor(
    kind: string,
    root: string,
    private readonly keepMs: number,
    private readonly valid: (entry: Record<string, unknown>) => boolean,
  ) {
    const dir = path.join(tackleStateDir(), kind);
    const name = `${createHash("sha256").update(root).digest("hex").slice(0, 32)}.jsonl`;
    this.#file = privateFolder(dir) ? path.join(dir, name) : undefined;
  }

  /** Appends one entry; a record that grew past its bound is compacted to the entries still kept. */
  append(entry: E): void {
    if (!this.#file) return;
    try {
      // One short append is one write: concurrent tackle processes do not interleave inside a line.
      appendLines(this.#file, `${JSON.stringify(entry)}\n`);
      if (lstatSync(this.#file).size > COMPACT_BYTES) {
        replaceOwnFile(
          this.#file,
          this.entries()
            .map((e) => `${JSON.stringify(e)}\n`)
            .join(""),
        );
      }
    } catch {
      // Without a state folder the entry is lost; callers treat a missing entry as never recorded.
    }
  }

  /** The entries still kept, oldest first. */
  entries(): E[] {
    if (!this.#file) return [];
    let text: string;
    try {
      text = readFileSync(this.#file, "utf8");
    } catch {
      return [];
    }
    const now = Date.now();
    const out: E[] = [];
    for (const line of text.split("\n")) {
      if (!line) continue;
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (typeof entry.t === "number" && now - entry.t < this.keepMs && this.valid(entry)) out.push(entry as unknown as E);
      } catch {
        // a line cut by a crash: the others still count
      }
    }
    return out;
  }
}

function privateFolder(dir: string): boolean {
  if (checked.has(dir)) return true;
  if (!ownFolder(dir)) return false;
  checked.add(dir);
  return true;
}
