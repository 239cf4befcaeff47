/*
 * What reaches a person's terminal from a model, a file, a command or a server is shown, never
 * obeyed: an escape sequence could erase the line above, move the cursor, retitle the window or set
 * the clipboard (OSC 52), and a right-to-left override or a run of blank lines could make a command
 * read as something other than what runs; characters that draw nothing (tags, fillers, a run of
 * variation selectors) can carry a whole hidden text past the person to the next model that reads
 * the file ("ASCII smuggling"). Each such character is written out as `cat -v`-like text (`\x1b`,
 * `\u202e`, `\u{e0041}`) instead, the same in the terminal, the dashboard and Emacs.
 */

/**
 * C0 and C1 controls but tab and newline, DEL, the invisible characters that reorder or hide text
 * (soft hyphen, joiners, Hangul and Khmer fillers, tags, the supplementary variation selectors), and
 * a run of two or more variation selectors (one after an emoji is how it is drawn; more hide data).
 * The dashboard uses this very pattern, and the Emacs package the same set of characters.
 */
export const HIDDEN = new RegExp(
  [
    "[\\ufe00-\\ufe0f\\u{e0100}-\\u{e01ef}]{2,}",
    "[" +
      "\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f" + // controls
      "\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180e\\u3164\\uffa0" + // soft hyphen, joiner, fillers
      "\\u200b-\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff" + // zero-width, reordering
      "\\u{e0000}-\\u{e007f}\\u{e0100}-\\u{e01ef}" + // tags, supplementary variation selectors
      "]",
  ].join("|"),
  "gu",
);

function escape(run: string): string {
  let out = "";
  for (const ch of run) {
    const code = ch.codePointAt(0)!;
    const hex = code.toString(16);
    out +=
      ch === "\r" ? "\\r" : code < 0x100 ? `\\x${hex.padStart(2, "0")}` : code <= 0xffff ? `\\u${hex.padStart(4, "0")}` : `\\u{${hex}}`;
  }
  return out;
}

/**
 * Text as it may be printed to a terminal: every control character and invisible reordering mark
 * made visible, newlines and tabs kept. For tool output and previews.
 */
export function terminalSafe(text: string): string {
  return text.replace(HIDDEN, escape);
}

/**
 * One value on one line, for the approval prompt: newlines and tabs written as `\n` and `\t` too,
 * and a long run of blanks (which could push the rest of a command out of sight) counted.
 */
export function oneLine(text: string): string {
  return countedRuns(terminalSafe(text).replace(/\n/g, "\\n").replace(/\t/g, "\\t"));
}

function countedRuns(text: string): string {
  return text.replace(/ {8,}/g, (run) => ` [${run.length} spaces] `);
}

/**
 * A call's arguments to show as JSON: each run of 8 or more spaces in a value counted, as
 * {@link oneLine} counts them, so that a run cannot push the rest of a command out of sight.
 */
export function spaceRunsCounted(value: unknown): unknown {
  if (typeof value === "string") return countedRuns(value);
  if (Array.isArray(value)) return value.map(spaceRunsCounted);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, spaceRunsCounted(v)]));
  return value;
}

/**
 * Lines of a preview, at most `max`, each made safe; what is left out is counted, with how to see it.
 */
export function foldLines(text: string, max: number, more = "? shows all"): string {
  const lines = terminalSafe(text).split("\n");
  if (lines.length <= max) return lines.join("\n");
  return `${lines.slice(0, max).join("\n")}\n… ${lines.length - max} more lines (${more})`;
}
