import { open } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../../core/errors.js";
import type { GrepHit } from "./hits.js";
import type { CompiledPattern } from "./regex.js";

/** Files larger than this are not searched (ripgrep gets the same --max-filesize). */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;
const READ_CONCURRENCY = 16;

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
  for (let start = 0; start < length; ) {
    lineNo++;
    let end = text.indexOf("\n", start);
    if (end === -1) end = length;
    const line = lineText(text, start, end);
    const found = pattern.line.exec(line);
    if (found) onHit(lineNo, line, found.index);
    start = end + 1;
  }
}

/** Reads a file for searching: `undefined` when it is too large, binary or unreadable. */
async function readText(file: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, "r");
  } catch {
    return undefined;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile() || st.size > MAX_FILE_BYTES) return undefined;
    return decodeText(await handle.readFile());
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** Searches files (relative to `cwd`) with the built-in engine, reporting every hit. */
export async function grepBuiltin(
  cwd: string,
  files: readonly string[],
  pattern: CompiledPattern,
  signal: AbortSignal,
  onHit: (hit: GrepHit) => void,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      if (signal.aborted) throw new ToolError("CANCELLED", "The search was cancelled.");
      const rel = files[next++]!;
      const text = await readText(path.join(cwd, rel));
      if (text === undefined) continue;
      searchText(text, pattern, (line, t, column) => onHit({ path: rel, line, text: t, column }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, files.length) }, worker));
}
