import { openResolvedSync, readResolvedSync } from "../../workspace/no-follow.js";
import { closeSync, readFileSync, readSync, statSync } from "node:fs";
import type { GrepHit } from "./hits.js";
import type { CompiledPattern } from "./regex.js";
import { yielder } from "../yielder.js";

/** Files larger than this are searched in blocks rather than read whole. */
export const BLOCK_BYTES = 16 * 1024 * 1024;

const utf16le = new TextDecoder("utf-16le");
const utf16be = new TextDecoder("utf-16be");

/**
 * A file's text as ripgrep sees it: a UTF-8 byte-order mark dropped, UTF-16 with a BOM
 * transcoded, and `undefined` for binary data (a NUL byte anywhere) — ripgrep's default
 * binary detection, whose matches tackle discards.
 */
export function decodeText(buf: Buffer): string | undefined {
  let text: string;
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) text = utf16le.decode(buf.subarray(2));
  else if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) text = utf16be.decode(buf.subarray(2));
  else {
    if (buf.indexOf(0) !== -1) return undefined;
    return buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? buf.toString("utf8", 3) : buf.toString("utf8");
  }
  return text.includes("\0") ? undefined : text;
}

function lineText(text: string, start: number, end: number): string {
  return end > start && text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
}

/**
 * The matching lines of one text. With a whole-file scanner, candidate positions come from one
 * pass of V8's regex engine over the file and only those lines are checked on their own;
 * otherwise (lookaround, backreferences) every line is tested.
 */
export function searchText(text: string, pattern: CompiledPattern, onHit: (line: number, text: string, column: number) => void): void {
  const length = text.length;
  if (length === 0) return;
  // ripgrep has no empty line after a final newline.
  const endsWithNewline = text.charCodeAt(length - 1) === 10;
  const scan = pattern.scan;
  if (scan) {
    scan.lastIndex = 0;
    let lineNo = 1;
    let lineStart = 0;
    for (;;) {
      const m = scan.exec(text);
      if (!m) break;
      const at = m.index;
      if (at === length && endsWithNewline) break;
      // Count the lines between the last candidate and this one.
      for (let nl = text.indexOf("\n", lineStart); nl !== -1 && nl < at; nl = text.indexOf("\n", lineStart)) {
        lineNo++;
        lineStart = nl + 1;
      }
      let lineEnd = text.indexOf("\n", at);
      if (lineEnd === -1) lineEnd = length;
      const line = lineText(text, lineStart, lineEnd);
      const found = pattern.line.exec(line);
      if (found) onHit(lineNo, line, found.index);
      if (lineEnd >= length) break;
      scan.lastIndex = lineEnd + 1;
    }
    return;
  }
  let lineNo = 0;
  for (let start = 0; start < length;) {
    lineNo++;
    let end = text.indexOf("\n", start);
    if (end === -1) end = length;
    const line = lineText(text, start, end);
    const found = pattern.line.exec(line);
    if (found) onHit(lineNo, line, found.index);
    start = end + 1;
  }
}

type HitSink = (line: number, text: string, column: number) => void;

/**
 * Searches one file. Hits are held until the whole file has been read, because a NUL byte late
 * in it makes it binary and drops them all (what ripgrep does too). Large files are read in
 * blocks cut at line ends, so memory stays bounded whatever the file's size.
 */
function searchFile(file: string, pattern: CompiledPattern, onHit: HitSink): void {
  const st = statSync(file, { throwIfNoEntry: false });
  if (!st || !st.isFile()) return;
  const hits: Array<[number, string, number]> = [];
  const keep: HitSink = (line, text, column) => hits.push([line, text, column]);
  if (st.size <= BLOCK_BYTES) {
    const text = decodeText(readResolvedSync(file));
    if (text === undefined) return;
    searchText(text, pattern, keep);
  } else if (!searchBlocks(file, pattern, keep)) {
    return;
  }
  for (const [line, text, column] of hits) onHit(line, text, column);
}

/** Block-wise search of a large file; false when it turns out to be binary. */
function searchBlocks(file: string, pattern: CompiledPattern, onHit: HitSink): boolean {
  const fd = openResolvedSync(file);
  try {
    const head = Buffer.alloc(3);
    const headLength = readSync(fd, head, 0, 3, 0);
    if (headLength >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))) {
      // UTF-16 is rare at this size; decode it whole.
      const text = decodeText(readFileSync(fd));
      if (text === undefined) return false;
      searchText(text, pattern, onHit);
      return true;
    }
    let position = headLength === 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
    let carry = Buffer.alloc(0);
    let lineBase = 0;
    const block = Buffer.alloc(BLOCK_BYTES);
    for (;;) {
      const n = readSync(fd, block, 0, BLOCK_BYTES, position);
      position += n;
      const data = carry.length ? Buffer.concat([carry, block.subarray(0, n)]) : block.subarray(0, n);
      if (data.indexOf(0) !== -1) return false;
      // Cut after the last newline; the rest waits for the next block (or is the last line).
      const cut = n === 0 ? data.length : data.lastIndexOf(10) + 1;
      const text = data.toString("utf8", 0, cut);
      if (text.length > 0) {
        const base = lineBase;
        searchText(text, pattern, (line, t, column) => onHit(base + line, t, column));
        for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lineBase++;
      }
      carry = Buffer.from(data.subarray(cut));
      if (n === 0) return true;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Searches files (relative to `cwd`) with the built-in engine, reporting every hit. Files are
 * read synchronously in short slices: for many small files that beats thread-pool reads.
 */
export async function grepBuiltin(
  cwd: string,
  files: readonly string[],
  pattern: CompiledPattern,
  signal: AbortSignal,
  onHit: (hit: GrepHit) => void,
): Promise<void> {
  const pause = yielder(signal);
  const prefix = cwd.endsWith("/") ? cwd : `${cwd}/`;
  for (const rel of files) {
    const wait = pause();
    if (wait) await wait;
    try {
      searchFile(prefix + rel, pattern, (line, t, column) => onHit({ path: rel, line, text: t, column }));
    } catch {
      // Unreadable or gone: skipped, as ripgrep does.
    }
  }
}
