/** One word of a plain command line: its value, and the text it was written as. */
export interface PlainWord {
  text: string;
  raw: string;
}

/**
 * Characters a bare word may hold: nothing bash would quote, escape, expand, glob, redirect or
 * join, no `~` or `#`, and none of the blanks beyond space and tab that JavaScript's `\s` knows
 * (bash reads a no-break space as part of a word). `:` and `=` only after a command's first word,
 * where `a=b` would be an assignment.
 */
const BARE_FIRST = /^[A-Za-z0-9_./@%+,-]$/;
const BARE = /^[A-Za-z0-9_./@%+,:=-]$/;
/** Single quotes keep everything but a quote; control characters (line breaks among them) are left to the grammar. */
const SINGLE_QUOTED = /^[^'\x00-\x1f\x7f]*$/;
/** Double quotes keep everything but what bash still reads there: `$`, backquotes, backslashes, `!`. */
const DOUBLE_QUOTED = /^[^"$`\\!\x00-\x1f\x7f]*$/;

const isBlank = (c: string | undefined) => c === " " || c === "\t";
const isOperator = (c: string | undefined) => c === "|" || c === "&" || c === ";";

/**
 * The simple commands of a line so plain that bash only splits it: words of the characters above
 * or quoted text with nothing left to expand (`'a b'`, `"x y"`, `foo'bar'`), joined by `|`, `&&`,
 * `||` or `;` (`grep -rn 'TODO' src | head -20`, `cd app && npm test`). Undefined for anything
 * else: other operators (`&`, `|&`, `;;`), an empty command, a line break, a first word with `=`
 * (an assignment, or a name that only looks like one). What a command's first word means (a
 * keyword, a builtin, a function) is the caller's to judge.
 */
export function plainCommands(line: string): PlainWord[][] | undefined {
  const commands: PlainWord[][] = [];
  let words: PlainWord[] = [];
  let i = 0;
  for (;;) {
    while (isBlank(line[i])) i++;
    if (i === line.length) break;
    const c = line[i]!;
    if (isOperator(c)) {
      const doubled = (c === "|" || c === "&") && line[i + 1] === c;
      // `a &`, and an operator with no command before it (`| a`, `a |& b`, `a ;; b`), are not plain.
      if ((c === "&" && !doubled) || words.length === 0) return undefined;
      commands.push(words);
      words = [];
      i += doubled ? 2 : 1;
      continue;
    }
    const start = i;
    let text = "";
    const bare = words.length === 0 ? BARE_FIRST : BARE;
    while (i < line.length && !isBlank(line[i]) && !isOperator(line[i])) {
      const ch = line[i]!;
      if (ch === "'" || ch === '"') {
        const end = line.indexOf(ch, i + 1);
        const body = end < 0 ? undefined : line.slice(i + 1, end);
        if (body === undefined || !(ch === "'" ? SINGLE_QUOTED : DOUBLE_QUOTED).test(body)) return undefined;
        text += body;
        i = end + 1;
      } else if (bare.test(ch)) {
        text += ch;
        i++;
      } else return undefined;
    }
    const raw = line.slice(start, i);
    if (words.length === 0 && (text === "" || raw.includes("="))) return undefined;
    words.push({ text, raw });
  }
  // A line ending in an operator (`a |`, `a ;`) or holding nothing.
  if (words.length === 0) return undefined;
  commands.push(words);
  return commands;
}

/**
 * The words of a command line so plain that bash only splits it on blanks (`ls -la src`,
 * `git status`, `echo hi`): one command of bare words; undefined for anything else.
 */
export function plainWords(command: string): string[] | undefined {
  const commands = plainCommands(command);
  const words = commands?.length === 1 ? commands[0]! : undefined;
  return words?.every((w) => w.raw === w.text) ? words.map((w) => w.text) : undefined;
}
