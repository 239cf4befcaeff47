import { close, closeSync, fstatSync, read, readSync } from "node:fs";
import { promisify } from "node:util";
import { iconv } from "../../net/charset.js";
import { openResolvedSync } from "../../workspace/no-follow.js";

const readAsync = promisify(read);
const closeAsync = promisify(close);

/** Files up to this size are read synchronously: a few syscalls cost less than thread-pool round trips. */
const SYNC_READ_MAX = 1 << 20;

/** Reads chunks of one open file; synchronous for small files, asynchronous for large ones. */
interface ChunkReader {
  size: number;
  read(buffer: Buffer, length: number, position: number): Promise<number>;
  close(): Promise<void>;
}

function openChunkReader(file: string): ChunkReader {
  const fd = openResolvedSync(file);
  let size: number;
  try {
    size = fstatSync(fd).size;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  if (size <= SYNC_READ_MAX) {
    return {
      size,
      read: async (buffer, length, position) => readSync(fd, buffer, 0, length, position),
      close: async () => closeSync(fd),
    };
  }
  return {
    size,
    read: async (buffer, length, position) => (await readAsync(fd, buffer, 0, length, position)).bytesRead,
    close: () => closeAsync(fd),
  };
}

/** Options for reading a window of lines. */
export interface LineWindowOptions {
  /** First line, 1-based. */
  offset: number;
  /** Most lines to return. */
  limit: number;
  /** Longer lines are cut to this many characters. */
  maxLineChars: number;
  /** Stop before the window's text exceeds this many characters. */
  maxChars: number;
  /** Byte encoding of the file (text only; UTF-16 is read whole by the caller). */
  encoding?: "utf-8" | "windows-1252";
  /** Bytes to skip at the start (a byte-order mark). */
  startByte?: number;
  /** Keep scanning after the window to count every line (cheap on small files). */
  countTotal?: boolean;
  signal?: AbortSignal;
  /** Told how far into the file reading has got (bytes), after each chunk: a skip through a huge file takes a while. */
  onRead?: (position: number) => void;
}

/** One line of a window. */
export interface WindowLine {
  /** 1-based line number; negative when counted from the end of a file too big to count. */
  number: number;
  text: string;
  /** The line's full length in characters (approximate for cut lines: bytes), when it was cut. */
  cutFrom?: number;
}

/** A window of a file's lines. */
export interface LineWindow {
  lines: WindowLine[];
  /** More lines follow the window. */
  hasMore: boolean;
  /** The window stopped early because of `maxChars`. */
  stoppedForSize: boolean;
  /** Every line in the file, when known. */
  totalLines?: number;
}

const NEWLINE = 0x0a;
/** Bytes read at a time. */
const CHUNK_BYTES = 1 << 20;

/** Decodes a text file's bytes (UTF-8 unless windows-1252 is named). */
export function decodeText(bytes: Buffer, encoding: LineWindowOptions["encoding"]): string {
  return encoding === "windows-1252" ? iconv().decode(bytes, "win1252") : bytes.toString("utf8");
}

/** Turns a line's bytes into a shown line: carriage return dropped, long lines cut. */
function finishLine(
  number: number,
  parts: Buffer[],
  byteLength: number,
  options: Pick<LineWindowOptions, "maxLineChars" | "encoding">,
): WindowLine {
  let bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  const whole = bytes.length === byteLength;
  if (whole && bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, -1);
  const text = decodeText(bytes, options.encoding);
  if (!whole) return { number, text: text.slice(0, options.maxLineChars), cutFrom: byteLength };
  if (text.length > options.maxLineChars) return { number, text: text.slice(0, options.maxLineChars), cutFrom: text.length };
  return { number, text };
}

/**
 * Reads lines `offset .. offset+limit-1` by streaming the file through one fixed buffer: lines
 * before the window are skipped by scanning for newline bytes (nothing is decoded), the window
 * is decoded line by line, and reading stops as soon as the window is full. Memory stays bounded whatever the file's size or
 * the length of its lines.
 */
export async function readLineWindow(file: string, options: LineWindowOptions): Promise<LineWindow> {
  const maxLineBytes = options.maxLineChars * 4 + 4;
  // One reused buffer rather than a stream of fresh chunks: memory stays flat even across a
  // gigabyte of skipped lines, where a stream's garbage would pile up faster than it is collected.
  const handle = openChunkReader(file);
  // A small file needs no 1 MiB buffer: one byte more than it holds shows where it ends.
  const chunkBytes = Math.min(CHUNK_BYTES, handle.size + 1);
  const buffer = Buffer.allocUnsafe(chunkBytes);
  let position = options.startByte ?? 0;
  const lines: WindowLine[] = [];
  let lineNo = 1;
  let parts: Buffer[] = [];
  let kept = 0;
  let lineBytes = 0;
  let chars = 0;
  let full = false;
  let stoppedForSize = false;
  let hasMore = false;
  let sawBytesOnLine = false;
  try {
    for (;;) {
      if (options.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
      const bytesRead = await handle.read(buffer, chunkBytes, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      options.onRead?.(position);
      const chunk = buffer.subarray(0, bytesRead);
      let pos = 0;
      if (full) {
        hasMore ||= chunk.length > 0;
        if (!options.countTotal) break;
      }
      while (pos < chunk.length) {
        if (full || lineNo < options.offset) {
          // Outside the window: count newlines only.
          const nl = chunk.indexOf(NEWLINE, pos);
          if (nl === -1) {
            sawBytesOnLine = true;
            pos = chunk.length;
            break;
          }
          lineNo++;
          sawBytesOnLine = false;
          pos = nl + 1;
          if (full) hasMore = true;
          continue;
        }
        const nl = chunk.indexOf(NEWLINE, pos);
        const end = nl === -1 ? chunk.length : nl;
        const piece = chunk.subarray(pos, end);
        lineBytes += piece.length;
        sawBytesOnLine ||= piece.length > 0;
        if (kept < maxLineBytes) {
          const take = piece.subarray(0, maxLineBytes - kept);
          // A line that ends in this chunk is decoded before the buffer is read into again; one
          // that goes on into the next read must be copied out of the reused buffer.
          parts.push(nl !== -1 && parts.length === 0 ? take : Buffer.from(take));
          kept += take.length;
        }
        if (nl === -1) {
          pos = chunk.length;
          break;
        }
        const line = finishLine(lineNo, parts, lineBytes, options);
        parts = [];
        kept = 0;
        lineBytes = 0;
        sawBytesOnLine = false;
        lineNo++;
        pos = nl + 1;
        const cost = line.text.length + 8;
        if (lines.length > 0 && chars + cost > options.maxChars) {
          // The line does not fit: it stays unread for the next call (offset = its number).
          stoppedForSize = true;
          full = true;
          hasMore = true;
          if (!options.countTotal) break;
          continue;
        }
        lines.push(line);
        chars += cost;
        if (lines.length >= options.limit) {
          full = true;
          if (pos < chunk.length) hasMore = true;
          if (!options.countTotal && hasMore) break;
        }
      }
      if (full && !options.countTotal && hasMore) break;
    }
  } finally {
    await handle.close();
  }
  if (!full && lineNo >= options.offset && (parts.length > 0 || lineBytes > 0)) {
    // The last line has no newline at its end; it still has to fit.
    const line = finishLine(lineNo, parts, lineBytes, options);
    if (lines.length > 0 && chars + line.text.length + 8 > options.maxChars) {
      stoppedForSize = true;
      hasMore = true;
    } else {
      lines.push(line);
    }
    sawBytesOnLine = false;
    lineNo++;
  }
  const result: LineWindow = { lines, hasMore, stoppedForSize };
  const ended = !hasMore || options.countTotal;
  if (ended) result.totalLines = sawBytesOnLine ? lineNo : lineNo - 1;
  if (!options.countTotal && full && hasMore) delete result.totalLines;
  return result;
}

/**
 * Reads the last `count` lines (after skipping `skipFromEnd` lines at the very end) by reading
 * the file backwards in blocks, like `tail -n`: the cost depends on the window, not the file.
 * Lines are numbered from the end (-1 is the last line).
 */
export async function readTailLines(
  file: string,
  count: number,
  skipFromEnd: number,
  options: Pick<LineWindowOptions, "maxLineChars" | "maxChars" | "encoding" | "startByte" | "signal">,
): Promise<{ lines: WindowLine[]; reachedStart: boolean; stoppedForSize: boolean }> {
  const handle = openChunkReader(file);
  try {
    const size = handle.size;
    const start = options.startByte ?? 0;
    const block = 1 << 16;
    const maxLineBytes = options.maxLineChars * 4 + 4;
    const wanted = count + skipFromEnd;
    // Bytes from `pos` to `end` of the file, newest block first.
    let pos = size;
    let end = size;
    // A final newline ends the last line rather than starting an empty one.
    if (size > start) {
      const last = Buffer.alloc(1);
      await handle.read(last, 1, size - 1);
      if (last[0] === NEWLINE) end = size - 1;
    }
    pos = end;
    const newlines: number[] = []; // file positions of newlines, descending
    while (pos > start && newlines.length < wanted) {
      if (options.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
      const from = Math.max(start, pos - block);
      const buf = Buffer.alloc(pos - from);
      await handle.read(buf, buf.length, from);
      for (let i = buf.lastIndexOf(NEWLINE); i !== -1 && newlines.length < wanted; i = i > 0 ? buf.lastIndexOf(NEWLINE, i - 1) : -1) {
        newlines.push(from + i);
      }
      pos = from;
    }
    const reachedStart = newlines.length < wanted;
    // Line k from the end (1-based) spans (newlines[k-1], newlines[k-2]) exclusive.
    const lineStart = (k: number) => (k - 1 < newlines.length ? newlines[k - 1]! + 1 : start);
    const lineEnd = (k: number) => (k === 1 ? end : newlines[k - 2]!);
    const available = reachedStart ? newlines.length + (end > start || newlines.length > 0 ? 1 : 0) : wanted;
    const lines: WindowLine[] = [];
    const readRange = async (from: number, to: number): Promise<Buffer> => {
      const buf = Buffer.alloc(to - from);
      if (buf.length) await handle.read(buf, buf.length, from);
      return buf;
    };
    for (let k = Math.min(available, wanted); k > skipFromEnd; k--) {
      const s = lineStart(k);
      const e = lineEnd(k);
      const length = e - s;
      const bytes = await readRange(s, Math.min(e, s + maxLineBytes));
      lines.push(finishLine(-k, [bytes], length, options));
    }
    let chars = 0;
    let stoppedForSize = false;
    const kept: WindowLine[] = [];
    // Keep the lines nearest the end when the window is too large to show whole.
    for (let i = lines.length - 1; i >= 0; i--) {
      const cost = lines[i]!.text.length + 8;
      if (kept.length > 0 && chars + cost > options.maxChars) {
        stoppedForSize = true;
        break;
      }
      kept.unshift(lines[i]!);
      chars += cost;
    }
    return { lines: kept, reachedStart, stoppedForSize };
  } finally {
    await handle.close();
  }
}
