/**
 * One word of a plain command line: its value (a variable as written), the text it was written as,
 * and its parts: literal text, and variables (`$NAME`, `${NAME}`), whose values bash fills in.
 */
export interface PlainWord {
  text: string;
  raw: string;
  parts: Array<string | PlainVariable>;
}

/** A variable in a word: its name, and how it was written (`$HOME`, `${HOME}`). */
export interface PlainVariable {
  name: string;
  written: string;
}

/** A redirection of a plain command: `2>&1`, `>/dev/null`, `>> log.txt`, `< in.txt`. */
export interface PlainRedirect {
  /** The file descriptor written before the operator (`2` of `2>`), if any. */
  fd?: string;
  /** As the grammar names it: `>`, `>>`, `<`, `>&`, `<&`, `&>`, `&>>`. */
  operator: string;
  target: PlainWord;
}

/** One simple command of a plain line: its words, and its redirections in the order written. */
export interface PlainCommand {
  words: PlainWord[];
  redirects: PlainRedirect[];
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
/** Double quotes keep everything but what bash still reads there: `$` (but for a variable), backquotes, backslashes, `!`. */
const DOUBLE_QUOTED = /^[^"$`\\!\x00-\x1f\x7f]*$/;
/** A variable bash fills in and does nothing else with: `$NAME` or `${NAME}`. */
const VARIABLE = /\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})/y;
/** Redirection operators read here, longest first; here-documents, `<>`, `>|` and closing (`>&-`) are left to the grammar. */
const REDIRECTS = ["&>>", "&>", ">>", ">&", "<&", ">", "<"];

const isBlank = (c: string | undefined) => c === " " || c === "\t";
const isOperator = (c: string | undefined) => c === "|" || c === "&" || c === ";";
const isRedirect = (c: string | undefined) => c === "<" || c === ">";

/**
 * The simple commands of a line so plain that bash only splits it: words of the characters above
 * or quoted text with nothing left to expand (`'a b'`, `"x y"`, `foo'bar'`) but variables (`$HOME`,
 * `"${X}/y"`), redirections after the command's name to such a word (`2>&1`, `>/dev/null`,
 * `>> log`), commands joined by `|`, `&&`, `||` or `;` (`grep -rn 'TODO' src | head -20`,
 * `npm test 2>&1 | tail`). Undefined for anything else:
 * other operators (`&`, `|&`, `;;`), an empty command, a line break, a redirection before the name,
 * a first word with `=` (an assignment, or a name that only looks like one). What a command's first
 * word means (a keyword, a builtin, a function) is the caller's to judge.
 */
export function plainCommands(line: string): PlainCommand[] | undefined {
  const commands: PlainCommand[] = [];
  let command: PlainCommand = { words: [], redirects: [] };
  let i = 0;

  /** The word at `i`, or undefined where none is, or where it is not plain. */
  const word = (bare: RegExp): PlainWord | undefined => {
    const start = i;
    const parts: Array<string | PlainVariable> = [];
    const literal = (text: string) => {
      if (typeof parts.at(-1) === "string") parts[parts.length - 1] += text;
      else parts.push(text);
    };
    /** The variable at `at` (a `$`), added; its length, or 0 if it is not a plain one. */
    const variable = (at: number): number => {
      VARIABLE.lastIndex = at;
      const found = VARIABLE.exec(line);
      if (!found) return 0;
      parts.push({ name: (found[1] ?? found[2])!, written: found[0] });
      return found[0].length;
    };
    while (i < line.length && !isBlank(line[i]) && !isOperator(line[i]) && !isRedirect(line[i])) {
      const ch = line[i]!;
      if (ch === "'") {
        const end = line.indexOf(ch, i + 1);
        const body = end < 0 ? undefined : line.slice(i + 1, end);
        if (body === undefined || !SINGLE_QUOTED.test(body)) return undefined;
        literal(body);
        i = end + 1;
      } else if (ch === '"') {
        // Literal stretches and variables, up to the closing quote.
        for (i++; line[i] !== '"';) {
          if (i >= line.length) return undefined;
          if (line[i] === "$") {
            const length = variable(i);
            if (length === 0) return undefined;
            i += length;
            continue;
          }
          let end = i;
          while (end < line.length && line[end] !== '"' && line[end] !== "$") end++;
          if (!DOUBLE_QUOTED.test(line.slice(i, end))) return undefined;
          literal(line.slice(i, end));
          i = end;
        }
        i++;
      } else if (ch === "$") {
        const length = variable(i);
        if (length === 0) return undefined;
        i += length;
      } else if (bare.test(ch)) {
        literal(ch);
        i++;
      } else return undefined;
    }
    if (i === start) return undefined;
    const text = parts.map((p) => (typeof p === "string" ? p : p.written)).join("");
    return { text, raw: line.slice(start, i), parts };
  };

  /** The redirection at `i` (its descriptor already read), added to the command; false if not plain. */
  const redirect = (fd: string | undefined): boolean => {
    const operator = REDIRECTS.find((op) => line.startsWith(op, i));
    if (!operator || command.words.length === 0 || (fd !== undefined && operator.startsWith("&"))) return false;
    i += operator.length;
    if (isRedirect(line[i]) || line[i] === "|" || line[i] === "(") return false;
    while (isBlank(line[i])) i++;
    const target = word(BARE);
    // After `>&` or `<&`, a `-` closes the descriptor and bash reads what follows it as a new word
    // (`2>&-x` and `>& -x` are `>&-` and `x`): left to the grammar.
    if (!target || (operator.endsWith("&") && target.raw.startsWith("-"))) return false;
    command.redirects.push({ ...(fd !== undefined ? { fd } : {}), operator, target });
    return true;
  };

  for (;;) {
    while (isBlank(line[i])) i++;
    if (i === line.length) break;
    const c = line[i]!;
    if (c === "&" && line[i + 1] === ">") {
      if (!redirect(undefined)) return undefined;
      continue;
    }
    if (isOperator(c)) {
      const doubled = (c === "|" || c === "&") && line[i + 1] === c;
      // `a &`, and an operator with no command before it (`| a`, `a |& b`, `a ;; b`), are not plain.
      if ((c === "&" && !doubled) || command.words.length === 0) return undefined;
      commands.push(command);
      command = { words: [], redirects: [] };
      i += doubled ? 2 : 1;
      continue;
    }
    if (isRedirect(c)) {
      if (!redirect(undefined)) return undefined;
      continue;
    }
    const first = command.words.length === 0;
    const next = word(first ? BARE_FIRST : BARE);
    if (!next) return undefined;
    // Digits alone right before `<` or `>` name the descriptor redirected (`2>&1`), not a word.
    if (isRedirect(line[i]) && /^[0-9]+$/.test(next.raw)) {
      if (!redirect(next.raw)) return undefined;
      continue;
    }
    if (first && (next.text === "" || next.raw.includes("="))) return undefined;
    command.words.push(next);
  }
  // A line ending in an operator (`a |`, `a ;`) or holding nothing.
  if (command.words.length === 0) return undefined;
  commands.push(command);
  return commands;
}

/**
 * The words of a command line so plain that bash only splits it on blanks (`ls -la src`,
 * `git status`, `echo hi`): one command of bare words; undefined for anything else.
 */
export function plainWords(command: string): string[] | undefined {
  const commands = plainCommands(command);
  const only = commands?.length === 1 ? commands[0]! : undefined;
  if (!only || only.redirects.length > 0 || !only.words.every((w) => w.raw === w.text && w.parts.every((p) => typeof p === "string")))
    return undefined;
  return only.words.map((w) => w.text);
}
