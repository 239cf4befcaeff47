import { ToolError } from "../../core/errors.js";
import { nearestCandidates } from "./edit-file.js";
import type { Hunk } from "./patch-parse.js";

/** How loosely a hunk's old lines may match the file's: exactly first, then ignoring trailing, then all surrounding whitespace. */
const LEVELS: ReadonlyArray<(s: string) => string> = [(s) => s, (s) => s.trimEnd(), (s) => s.trim()];

/** Where a hunk applied: its first line in the new text (1-based) and how many lines it now spans. */
export interface HunkPlace {
  line: number;
  lines: number;
}

/** A file's text after its hunks, where each landed, and the hunks as applied (unified diff lines, file's spelling). */
export interface Patched {
  text: string;
  places: HunkPlace[];
  diff: string[];
}

/**
 * Applies `hunks` in order to `text`. A hunk's kept and removed lines must be found in the file
 * (nearest its stated line, never before the previous hunk); kept lines keep the file's own
 * spelling when they matched loosely. Line endings and the final newline stay as the file had
 * them unless a "No newline" marker says otherwise. Throws INVALID_ARGS naming the hunk and the
 * nearest text when one does not fit; nothing is applied from a guess.
 */
export function applyHunks(text: string, hunks: readonly Hunk[], rel: string): Patched {
  const crlf = text.includes("\r\n") && !/(?<!\r)\n/.test(text);
  const eol = crlf ? "\r\n" : "\n";
  let finalNewline = text === "" ? true : text.endsWith("\n");
  const lines = text === "" ? [] : (finalNewline ? text.slice(0, -eol.length) : text).split(eol);
  let cursor = 0;
  let delta = 0;
  const places: HunkPlace[] = [];
  const diff: string[] = [];
  hunks.forEach((hunk, n) => {
    const label = `Hunk ${n + 1} of ${hunks.length} for "${rel}" (${hunk.header})`;
    const old = hunk.lines.filter((l) => l.op !== "+").map((l) => l.text);
    let from = cursor;
    if (hunk.anchor !== undefined) {
      const found = findLine(lines, hunk.anchor, cursor);
      if (found === -1) {
        throw new ToolError(
          "INVALID_ARGS",
          `${label}: its @@ line names ${JSON.stringify(hunk.anchor)}, which is not in the file${cursor ? " after the previous hunk" : ""}. ` +
            `Read the file again and give a line that is there. Nothing was changed.`,
        );
      }
      from = found + 1;
    }
    const expected = hunk.oldStart !== undefined ? Math.max(from, hunk.oldStart - 1 + delta) : from;
    const at =
      old.length === 0
        ? hunk.atEnd || hunk.oldStart === undefined
          ? lines.length
          : Math.min(expected, lines.length)
        : locate(lines, old, from, expected, hunk.atEnd);
    if (at === -1) {
      const what = `${label}: its kept and removed lines (" " and "-")`;
      const hint = nearestCandidates(lines.slice(from).join("\n"), old.join("\n"), what, "make the hunk's lines match it exactly");
      const shift = from ? ` (searched from line ${from + 1}, after the previous hunk; the lines shown count from there)` : "";
      throw new ToolError("INVALID_ARGS", `${hint}${shift}`);
    }
    let k = at;
    const replacement: string[] = [];
    const shown: string[] = [];
    for (const l of hunk.lines) {
      if (l.op === "+") {
        replacement.push(l.text);
        shown.push(`+${l.text}`);
      } else {
        if (l.op === " ") replacement.push(lines[k]!);
        shown.push(`${l.op}${lines[k++]!}`);
      }
    }
    // As diff prints it: a side with no lines is numbered by the line before it.
    const start = (index: number, count: number) => (count === 0 ? index : index + 1);
    diff.push(`@@ -${start(at - delta, old.length)},${old.length} +${start(at, replacement.length)},${replacement.length} @@`, ...shown);
    lines.splice(at, old.length, ...replacement);
    places.push({ line: at + 1, lines: replacement.length });
    cursor = at + replacement.length;
    delta += replacement.length - old.length;
    if (cursor === lines.length) {
      if (hunk.newNoNewline) finalNewline = false;
      else if (hunk.oldNoNewline) finalNewline = true;
    }
  });
  const body = lines.join(eol);
  return { text: lines.length === 0 ? "" : finalNewline ? body + eol : body, places, diff };
}

function findLine(lines: readonly string[], wanted: string, from: number): number {
  for (const level of LEVELS) {
    const w = level(wanted);
    for (let i = from; i < lines.length; i++) if (level(lines[i]!) === w) return i;
  }
  return -1;
}

/** The start of `old` in `lines` at or after `from`, nearest `expected`, at the strictest level that finds one; -1 if none. */
function locate(lines: readonly string[], old: readonly string[], from: number, expected: number, atEnd: boolean): number {
  const last = lines.length - old.length;
  if (last < from) return -1;
  for (const level of LEVELS) {
    const want = old.map(level);
    const fits = (k: number) => want.every((w, j) => level(lines[k + j]!) === w);
    if (atEnd) {
      if (fits(last)) return last;
      continue;
    }
    // Outward from where the patch says the hunk lies, so a repeated block goes to the right copy.
    const start = Math.min(Math.max(expected, from), last);
    for (let d = 0; start - d >= from || start + d <= last; d++) {
      if (start + d <= last && fits(start + d)) return start + d;
      if (d > 0 && start - d >= from && fits(start - d)) return start - d;
    }
  }
  return -1;
}
