import { formatCount } from "../../core/format-count.js";
import type { LineWindow, LineWindowOptions, WindowLine } from "./line-window.js";

/**
 * A window of a file as read_file answers with it: numbered for the model, bare for the
 * structured result, and where it sits in the file.
 */
export interface NumberedWindow {
  /** The lines with right-aligned numbers and a tab ("     1\tfirst line"), joined by newlines. */
  numbered: string;
  /** The same lines as shown (carriage returns dropped, long lines cut), joined by newlines. */
  raw: string;
  /** Lines in the window. */
  count: number;
  /** Numbers of the first and last lines, when there are any. */
  first?: number;
  last?: number;
  hasMore: boolean;
  stoppedForSize: boolean;
  totalLines?: number;
  /** Tail reads: the window reaches the first line of the file. */
  reachedStart?: boolean;
}

/** What {@link numberText} needs: the window, and the limits on lines and characters. */
export type TextWindowOptions = Pick<LineWindowOptions, "offset" | "limit" | "maxLineChars" | "maxChars">;

const CARRIAGE_RETURN = 13;
/** Narrowest number column; wider only past 999,999 lines. */
const NUMBER_WIDTH = 6;
const PAD = " ".repeat(24);
/** Line starts ("\n     1\t") of the first lines in the narrowest column, made once: most reads start there. */
const starts: string[] = [];
const CACHED_STARTS = 10_000;

function makeStart(n: number, width: number): string {
  const digits = String(n);
  return "\n" + (digits.length < width ? PAD.slice(0, width - digits.length) : "") + digits + "\t";
}

/** What goes before line `n`'s text: a newline, its number right-aligned in `width`, a tab. */
function lineStart(n: number, width: number): string {
  if (width !== NUMBER_WIDTH || n < 0 || n >= CACHED_STARTS) return makeStart(n, width);
  // Filled in order, so the array stays dense (a far first index would make it a dictionary).
  while (starts.length <= n) starts.push(makeStart(starts.length, NUMBER_WIDTH));
  return starts[n]!;
}

/**
 * The numbered text so far with line `n` added. Built by concatenation, a rope that is flattened
 * once when the answer is serialised: half the work of numbering each line and joining them.
 */
function addLine(numbered: string, first: boolean, n: number, width: number, line: string): string {
  const start = lineStart(n, width);
  return first ? start.slice(1) + line : numbered + (start + line);
}

function cutNotice(length: number, maxLineChars: number): string {
  return ` … [line cut: ${formatCount(length)} characters, only the first ${maxLineChars} shown; use grep to find text in it]`;
}

/** Numbers the lines of a window read from a file (streamed, or from its end). */
export function numberLines(window: LineWindow & { reachedStart?: boolean }, maxLineChars: number): NumberedWindow {
  const { lines, ...where } = window;
  // Numbers rise through a window (tail windows count up from a negative one), so the widest is at an end.
  const first = lines[0]?.number;
  const last = lines.at(-1)?.number;
  const width = Math.max(NUMBER_WIDTH, String(first ?? 0).length, String(last ?? 0).length);
  let numbered = "";
  lines.forEach((l: WindowLine, i) => {
    numbered = addLine(numbered, i === 0, l.number, width, l.cutFrom !== undefined ? l.text + cutNotice(l.cutFrom, maxLineChars) : l.text);
  });
  const raw = lines.map((l) => l.text).join("\n");
  return { ...where, numbered, raw, count: lines.length, first, last };
}

/** Where a window of `segments` from `from` ends: at the limit, or before the line that would pass the size. */
function fitting(segments: readonly string[], from: number, options: TextWindowOptions): number {
  let end = from;
  let chars = 0;
  for (; end < segments.length && end - from < options.limit; end++) {
    const segment = segments[end]!;
    const length = segment.charCodeAt(segment.length - 1) === CARRIAGE_RETURN ? segment.length - 1 : segment.length;
    const shown = Math.min(length, options.maxLineChars);
    if (end > from && chars + shown + 8 > options.maxChars) break;
    chars += shown + 8;
  }
  return end;
}

/**
 * A window of text already in memory (a small file read whole, a converted .docx, UTF-16 text),
 * numbered: the same answer as {@link numberLines} over the streaming reader's window, except that a
 * cut line's length is always exact, in characters. A negative offset counts from the end (-100:
 * the last hundred lines). No object is made per line: this is every small read's path.
 */
export function numberText(text: string, options: TextWindowOptions): NumberedWindow {
  const segments = text.split("\n");
  // A final newline ends the last line rather than starting an empty one.
  if (segments.at(-1) === "") segments.pop();
  const total = segments.length;
  const from = options.offset < 0 ? Math.max(0, total + options.offset) : options.offset - 1;
  // Which lines fit comes first: the widest number decides the column.
  const end = fitting(segments, from, options);
  const stoppedForSize = end < Math.min(total, from + options.limit);
  const width = Math.max(NUMBER_WIDTH, String(end).length);
  let numbered = "";
  // The bare lines, made only from the first line shown otherwise than the file has it.
  let bare: string[] | undefined;
  for (let n = from; n < end; n++) {
    const original = segments[n]!;
    let line = original;
    if (line.charCodeAt(line.length - 1) === CARRIAGE_RETURN) line = line.slice(0, -1);
    let notice = "";
    if (line.length > options.maxLineChars) {
      notice = cutNotice(line.length, options.maxLineChars);
      line = line.slice(0, options.maxLineChars);
    }
    if (line.length !== original.length) bare ??= segments.slice(from, n);
    bare?.push(line);
    numbered = addLine(numbered, n === from, n + 1, width, notice ? line + notice : line);
  }
  const count = Math.max(0, end - from);
  let raw: string;
  if (bare) raw = bare.join("\n");
  // A whole file shown as it is (most small reads) is its own bare text.
  else if (from === 0 && end === total) raw = text.endsWith("\n") ? text.slice(0, -1) : text;
  else raw = segments.slice(from, end).join("\n");
  return {
    numbered,
    raw,
    count,
    ...(count > 0 ? { first: from + 1, last: end } : {}),
    hasMore: end < total,
    stoppedForSize,
    totalLines: total,
  };
}
