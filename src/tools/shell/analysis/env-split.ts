import { literalWord, type Word } from "./words.js";

/** What GNU env accepts after a backslash outside single quotes in a -S string; anything else is an error. */
const ESCAPES = new Set(["c", "f", "n", "r", "t", "v", "#", "$", "_", '"', "'", "\\"]);
/**
 * What separates words outside quotes. Some versions of env split on space and tab alone; reading
 * a line break as a separator too finds every command those would run, and the one coreutils 9 runs.
 */
const BLANKS = new Set([" ", "\t", "\n", "\v", "\f", "\r"]);
/** The escapes that stand for a control character. */
const CONTROL: Readonly<Record<string, string>> = { f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" };

/**
 * Splits the string of `env -S STRING` (`--split-string`) into the words env puts in its place
 * among its arguments, as GNU coreutils does: blanks separate words outside quotes;
 * single quotes keep everything but `\\` and `\'`; double quotes keep blanks and allow the escapes;
 * `\_` separates words (a space inside double quotes), `\c` ends the string, a `#` that starts a
 * word ends it too; `${NAME}` is the variable's value (part of its word, never split), which makes
 * the word known only when it runs. Undefined where env would stop with an error (an unknown
 * escape, `$NAME` without braces, a quote left open) and run nothing: tackle then judges the call
 * as one it cannot read, rather than trust that env refuses it.
 */
export function splitLikeEnv(text: string): Word[] | undefined {
  const words: Word[] = [];
  let current: { text: string; staticPrefix: string | undefined } | undefined;
  const start = () => (current ??= { text: "", staticPrefix: undefined });
  const end = () => {
    if (current) {
      // env expands no globs, braces or `~`; past a `${NAME}` the word is known only when it runs.
      const word = literalWord(current.text);
      words.push(current.staticPrefix === undefined ? word : { ...word, dynamic: true, staticPrefix: current.staticPrefix });
    }
    current = undefined;
  };
  let single = false;
  let double = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" && !double) {
      single = !single;
      start();
      continue;
    }
    if (c === '"' && !single) {
      double = !double;
      start();
      continue;
    }
    if (BLANKS.has(c) && !single && !double) {
      end();
      continue;
    }
    if (c === "#" && !current && !single && !double) break;
    if (c === "\\") {
      const next = text[i + 1];
      if (next === undefined) return undefined;
      // Inside single quotes only \\ and \' are escapes; the backslash of any other stays, and the character after it is read as usual.
      if (single && next !== "\\" && next !== "'") {
        start().text += c;
        continue;
      }
      if (!single && (!ESCAPES.has(next) || (double && next === "c"))) return undefined;
      i++;
      if (next === "\\" || next === "'" || next === "#" || next === "$" || next === '"') start().text += next;
      else if (next === "_" && !double) end();
      else if (next === "_") start().text += " ";
      else if (next === "c") {
        end();
        return words;
      } else start().text += CONTROL[next]!;
      continue;
    }
    if (c === "$" && !single) {
      const name = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(text.slice(i));
      if (!name) return undefined;
      const word = start();
      word.staticPrefix ??= word.text;
      word.text += name[0];
      i += name[0].length - 1;
      continue;
    }
    start().text += c;
  }
  if (single || double) return undefined;
  end();
  return words;
}
