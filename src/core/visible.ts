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
 * C0 and C1 controls but tab and newline, DEL, every format character (Unicode's Cf: the soft
 * hyphen, zero-width and reordering marks, Arabic and Syriac marks that draw nothing by themselves,
 * interlinear annotation anchors, tags...), the line and paragraph separators, the characters that
 * draw nothing though they are letters or marks (the grapheme joiner, Hangul and Khmer fillers, the
 * supplementary variation selectors), and a run of two or more variation selectors (one after an
 * emoji is how it is drawn; more hide data). Written out, not as `\p{Cf}`, so the Emacs package can
 * hold the very same set; a test checks it still covers Cf. The dashboard uses this very pattern.
 */
export const HIDDEN = new RegExp(
  [
    "[\\ufe00-\\ufe0f\\u{e0100}-\\u{e01ef}\\u180b-\\u180d\\u180f]{2,}",
    "[" +
      "\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f" + // controls
      "\\u00ad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u180e" + // format characters (Cf) ...
      "\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb" +
      "\\u{110bd}\\u{110cd}\\u{13430}-\\u{1343f}\\u{1bca0}-\\u{1bca3}\\u{1d173}-\\u{1d17a}\\u{e0000}-\\u{e007f}" +
      "\\u2028\\u2029" + // line and paragraph separators
      "\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u3164\\uffa0\\u{e0100}-\\u{e01ef}" + // joiner, fillers, variation selectors
      "]",
  ].join("|"),
  "gu",
);

/**
 * Characters drawn as blank space (the space, no-break and typographic spaces, the ideographic
 * space, the Braille blank): a run of 8 or more of them could push the rest of a command out of
 * sight, so the prompt, the dashboard and Emacs count it. The dashboard uses this very pattern.
 */
export const BLANK_RUN = /[ \u00a0\u1680\u2000-\u200a\u202f\u205f\u2800\u3000]{8,}/g;

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
  return text.replace(BLANK_RUN, (run) => ` [${[...run].length} spaces] `);
}

/**
 * A call's arguments to show as JSON: each run of 8 or more blanks in a value counted, as
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
