/*
 * What reaches a person's terminal from a model, a file, a command or a server is shown, never
 * obeyed: an escape sequence could erase the line above, move the cursor, retitle the window or set
 * the clipboard (OSC 52), and a right-to-left override or a run of blank lines could make a command
 * read as something other than what runs. Each such character is written out as `cat -v`-like
 * text (`\x1b`, `\u202e`) instead, the same in the terminal, the dashboard and Emacs.
 */

/**
 * C0 and C1 controls but tab and newline, DEL, and the invisible characters that reorder or hide
 * text. The dashboard uses this very pattern, and the Emacs package the same set of characters.
 */
export const HIDDEN =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

function escape(ch: string): string {
  const code = ch.codePointAt(0)!;
  if (ch === "\r") return "\\r";
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
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
  return terminalSafe(text)
    .replace(/\n/g, "\\n")
    .replace(/\t/g, "\\t")
    .replace(/ {8,}/g, (run) => ` [${run.length} spaces] `);
}

/**
 * Lines of a preview, at most `max`, each made safe; what is left out is counted, with how to see it.
 */
export function foldLines(text: string, max: number, more = "? shows all"): string {
  const lines = terminalSafe(text).split("\n");
  if (lines.length <= max) return lines.join("\n");
  return `${lines.slice(0, max).join("\n")}\n… ${lines.length - max} more lines (${more})`;
}
