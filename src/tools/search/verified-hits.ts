import { closeSync, fstatSync, readFileSync, readSync } from "node:fs";
import path from "node:path";
import { openResolvedSync } from "../../workspace/no-follow.js";
import { decodeText } from "./grep-builtin.js";
import type { GrepHit } from "./hits.js";

/** Files up to this size are read whole to check their hits; larger ones line by line up to the last hit. */
const WHOLE_BYTES = 8 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/**
 * ripgrep opens what it walks by path: a folder that a command running meanwhile swaps for a link
 * between ripgrep's listing of its parent and its opening (one rename-exchange does it) leads the
 * walk out of the workspace, and the lines it prints are another file's, a secret's included. So
 * each hit shown is read again, through a descriptor checked to be the very file ripgrep named
 * inside `root` (see workspace/no-follow.ts), and kept only if that line says what ripgrep said.
 * Returns the hits kept, in order, and how many were dropped.
 */
export function verifiedHits(root: string, hits: readonly GrepHit[]): { kept: GrepHit[]; dropped: number } {
  const wanted = new Map<string, Set<number>>();
  for (const h of hits) {
    let lines = wanted.get(h.path);
    if (!lines) wanted.set(h.path, (lines = new Set()));
    lines.add(h.line);
  }
  const found = new Map<string, Map<number, string>>();
  for (const [rel, lines] of wanted) found.set(rel, linesOf(path.join(root, rel), lines) ?? new Map());
  const kept = hits.filter((h) => found.get(h.path)!.get(h.line) === h.text);
  return { kept, dropped: hits.length - kept.length };
}

/** The text of the numbered lines (from 1) of a resolved file, read through a checked descriptor; undefined when it cannot be. */
function linesOf(absolute: string, wanted: ReadonlySet<number>): Map<number, string> | undefined {
  let fd: number;
  try {
    fd = openResolvedSync(absolute);
  } catch {
    return undefined;
  }
  try {
    if (fstatSync(fd).size <= WHOLE_BYTES) {
      const text = decodeText(readFileSync(fd));
      if (text === undefined) return undefined;
      const out = new Map<number, string>();
      let n = 1;
      for (let start = 0; start <= text.length; n++) {
        const nl = text.indexOf("\n", start);
        const end = nl === -1 ? text.length : nl;
        if (wanted.has(n)) out.set(n, withoutCr(text.slice(start, end)));
        if (nl === -1) break;
        start = nl + 1;
      }
      return out;
    }
    return streamedLines(fd, wanted);
  } finally {
    closeSync(fd);
  }
}

/** The wanted lines of a large UTF-8 file, read in chunks and no further than the last of them. */
function streamedLines(fd: number, wanted: ReadonlySet<number>): Map<number, string> {
  const last = Math.max(...wanted);
  const out = new Map<number, string>();
  const chunk = Buffer.alloc(CHUNK_BYTES);
  let carry = Buffer.alloc(0);
  let n = 1;
  let position = 0;
  for (;;) {
    const read = readSync(fd, chunk, 0, CHUNK_BYTES, position);
    position += read;
    const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, read)]) : chunk.subarray(0, read);
    let start = 0;
    for (let nl = buf.indexOf(10, start); nl !== -1 && n <= last; nl = buf.indexOf(10, start)) {
      if (wanted.has(n)) out.set(n, lineAt(buf, start, nl, n));
      n++;
      start = nl + 1;
    }
    if (n > last) return out;
    carry = Buffer.from(buf.subarray(start));
    if (read === 0) {
      if (wanted.has(n) && carry.length) out.set(n, lineAt(carry, 0, carry.length, n));
      return out;
    }
  }
}

function lineAt(buf: Buffer, start: number, end: number, n: number): string {
  // ripgrep leaves a UTF-8 byte-order mark out of the first line.
  const from = n === 1 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf ? start + 3 : start;
  return withoutCr(buf.toString("utf8", from, end));
}

function withoutCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
