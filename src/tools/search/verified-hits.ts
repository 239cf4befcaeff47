import { closeSync, readFileSync, readSync } from "node:fs";
import path from "node:path";
import { openResolvedSync } from "../../workspace/no-follow.js";
import { decodeText } from "./grep-builtin.js";
import type { GrepHit } from "./hits.js";

const CHUNK_BYTES = 256 * 1024;
/** Where files are read, kept from call to call. */
let landing: Buffer | undefined;

/**
 * ripgrep opens what it walks by path: a folder that a command running meanwhile swaps for a link
 * between ripgrep's listing of its parent and its opening (one rename-exchange does it) leads the
 * walk out of the workspace, and the lines it prints are another file's, a secret's included. So
 * each hit shown is read again, through a descriptor checked to be the very file ripgrep named
 * inside `root` (see workspace/no-follow.ts), and kept only if that line says what ripgrep said.
 * A file is read no further than its last hit shown. Returns the hits kept, in order, and how
 * many were dropped.
 */
export function verifiedHits(root: string, hits: readonly GrepHit[]): { kept: GrepHit[]; dropped: number } {
  const wanted = new Map<string, Set<number>>();
  for (const h of hits) {
    let lines = wanted.get(h.path);
    if (!lines) wanted.set(h.path, (lines = new Set()));
    lines.add(h.line);
  }
  const found = new Map<string, Map<number, string> | undefined>();
  for (const [rel, lines] of wanted) found.set(rel, linesOf(path.join(root, rel), lines));
  const kept = hits.filter((h) => found.get(h.path)?.get(h.line) === h.text);
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
    return readLines(fd, wanted);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The wanted lines, read in chunks no further than the last of them; UTF-16 files are decoded whole. */
function readLines(fd: number, wanted: ReadonlySet<number>): Map<number, string> {
  const buf = (landing ??= Buffer.allocUnsafeSlow(CHUNK_BYTES));
  const out = new Map<number, string>();
  const last = Math.max(...wanted);
  let carry: Buffer | undefined;
  let n = 1;
  let position = 0;
  for (;;) {
    const read = readSync(fd, buf, 0, CHUNK_BYTES, position);
    if (position === 0 && read >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) {
      return utf16Lines(fd, wanted);
    }
    position += read;
    const chunk = carry ? Buffer.concat([carry, buf.subarray(0, read)]) : buf.subarray(0, read);
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1 && n <= last; nl = chunk.indexOf(10, start)) {
      if (wanted.has(n)) out.set(n, lineAt(chunk, start, nl, n));
      n++;
      start = nl + 1;
    }
    if (n > last) return out;
    // The line under way is copied: the next read reuses the buffer.
    carry = Buffer.from(chunk.subarray(start));
    if (read === 0) {
      if (wanted.has(n) && carry.length) out.set(n, lineAt(carry, 0, carry.length, n));
      return out;
    }
  }
}

function utf16Lines(fd: number, wanted: ReadonlySet<number>): Map<number, string> {
  const out = new Map<number, string>();
  const lines = decodeText(readFileSync(fd))?.split("\n") ?? [];
  for (const n of wanted) if (n <= lines.length) out.set(n, withoutCr(lines[n - 1]!));
  return out;
}

function lineAt(buf: Buffer, start: number, end: number, n: number): string {
  // ripgrep leaves a UTF-8 byte-order mark out of the first line.
  const from = n === 1 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf ? start + 3 : start;
  return withoutCr(buf.toString("utf8", from, end));
}

function withoutCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
