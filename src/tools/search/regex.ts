import { ToolError } from "../../core/errors.js";

/**
 * grep's pattern dialect is ripgrep's: Rust `regex` syntax. The built-in backend runs the same
 * pattern on V8, so this module translates Rust syntax to an equivalent JavaScript RegExp (with
 * the `u` flag) wherever the two differ in ways that change results:
 *
 * - `\d \w \s \b` are Unicode-aware in Rust and ASCII-only in JavaScript: they become Unicode
 *   property classes (and `\b` a lookaround on them).
 * - `.` excludes only `\n` in Rust but also `\r`, U+2028 and U+2029 in JavaScript: `[^\n]`.
 * - `(?i)` / `(?s)` at the start become flags; `(?P<name>...)` becomes `(?<name>...)`;
 *   `\x{...}` becomes `\u{...}`; `\pL` becomes `\p{L}`; `\A` / `\z` become `^` / `$`;
 *   `[[:alpha:]]` style classes become ASCII ranges; escaped punctuation Rust allows (`\#`, `\-`
 *   outside a class...) becomes the plain character; a lone `]` or `}` is a literal.
 *
 * Lookaround and backreferences are not Rust syntax; JavaScript has them, so such patterns are
 * accepted and always run on the built-in engine (`jsOnly`). Inline flags anywhere but the start,
 * `(?x)`, nested classes and class set operations are refused with a clear message rather than
 * silently meaning something else on one backend.
 */
export interface CompiledPattern {
  /** The pattern as the caller wrote it (what ripgrep receives). */
  original: string;
  /** JavaScript source and flags of the per-line matcher. */
  source: string;
  flags: string;
  /** One-line matcher (no `g`, no `m`). */
  line: RegExp;
  /**
   * Scans a whole file for candidate lines (`g` + `m`): every line that matches `line` also
   * matches this at the same position. Absent when the pattern has lookaround or backreferences,
   * whose view across a line end differs.
   */
  scan?: RegExp;
  /** Uses syntax ripgrep lacks (lookaround, backreferences): run on the built-in engine. */
  jsOnly: boolean;
}

/** What `\w` means in Rust's Unicode mode (UTS#18 word characters), as class contents. */
const WORD = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}";
const DIGIT = "\\p{Nd}";
const SPACE = "\\p{White_Space}";
const WORD_BOUNDARY = `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`;
const NOT_WORD_BOUNDARY = `(?:(?<=[${WORD}])(?=[${WORD}])|(?<![${WORD}])(?![${WORD}]))`;

const POSIX: Readonly<Record<string, string>> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\x0B\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/** Characters JavaScript's `u` mode lets you escape outside a class. */
const JS_SYNTAX = new Set([..."^$\\.*+?()[]{}|/"]);
/** ASCII punctuation Rust lets you escape (regex-syntax's meta characters and friends). */
const RUST_ESCAPABLE = new Set([..."\\.+*?()|[]{}^$#&-~ /!\"%',:;<=>@_`"]);

function invalid(pattern: string, reason: string): ToolError {
  return new ToolError(
    "INVALID_ARGS",
    `Invalid regular expression ${JSON.stringify(pattern)}: ${reason}. The pattern uses ripgrep's (Rust) regex syntax; ` +
      `escape special characters such as ( ) [ ] { } . * + ? | \\ with a backslash to match them literally.`,
  );
}

/** Escapes a literal character for use outside a class in `u` mode. */
function literal(ch: string): string {
  return JS_SYNTAX.has(ch) ? `\\${ch}` : ch;
}

/** Escapes a literal character for use inside a class in `u` mode. */
function classLiteral(ch: string): string {
  return ch === "\\" || ch === "]" || ch === "[" || ch === "-" || ch === "^" ? `\\${ch}` : ch;
}

interface Translation {
  source: string;
  flags: Set<string>;
  jsOnly: boolean;
}

class Translator {
  readonly #p: string;
  #i = 0;
  #out = "";
  readonly flags = new Set<string>();
  jsOnly = false;

  constructor(pattern: string) {
    this.#p = pattern;
  }

  run(): Translation {
    this.#leadingFlags();
    while (this.#i < this.#p.length) this.#atom();
    return { source: this.#out, flags: this.flags, jsOnly: this.jsOnly };
  }

  #fail(reason: string): never {
    throw invalid(this.#p, reason);
  }

  /** `(?is)` at the very start (repeatable): the only place inline flags are accepted. */
  #leadingFlags(): void {
    for (;;) {
      const m = /^\(\?([a-zA-Z-]*)\)/.exec(this.#p.slice(this.#i));
      if (!m) return;
      for (const f of m[1]!) {
        if (f === "i" || f === "s") this.flags.add(f);
        else if (f === "m" || f === "u")
          continue; // one line at a time; always Unicode
        else this.#fail(`the inline flag "${f}" is not supported (only i, s, m and u, at the start of the pattern)`);
      }
      this.#i += m[0].length;
    }
  }

  #atom(): void {
    const p = this.#p;
    const ch = p[this.#i]!;
    if (ch === "\\") return this.#escape(false);
    if (ch === "[") return this.#class();
    if (ch === "(") return this.#group();
    if (ch === ".") {
      this.#i++;
      this.#out += "[^\\n]";
      return;
    }
    if (ch === "]" || ch === "}") {
      // Rust reads a lone closing bracket as a literal; JavaScript's u mode rejects it. A "}"
      // that closes a quantifier is consumed with it by #quantifier and never reaches here.
      this.#i++;
      this.#out += `\\${ch}`;
      return;
    }
    if (ch === "{") return this.#quantifier();
    if (ch === "\n") this.#fail("grep matches one line at a time, so a pattern cannot contain a line break");
    // Astral characters are two code units; copy them whole.
    const cp = p.codePointAt(this.#i)!;
    const s = String.fromCodePoint(cp);
    this.#i += s.length;
    this.#out += s;
  }

  #quantifier(): void {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.#p.slice(this.#i));
    if (!m) this.#fail('a "{" must start a repetition like {2} or {2,5}; write \\{ for a literal brace');
    this.#i += m[0].length;
    this.#out += m[0];
  }

  #group(): void {
    const rest = this.#p.slice(this.#i);
    let m: RegExpExecArray | null;
    if ((m = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest))) {
      this.#i += m[0].length;
      this.#out += `(?<${m[1]}>`;
      return;
    }
    if (rest.startsWith("(?:")) {
      this.#i += 3;
      this.#out += "(?:";
      return;
    }
    if ((m = /^\(\?(<=|<!|=|!)/.exec(rest))) {
      this.jsOnly = true;
      this.#i += m[0].length;
      this.#out += m[0];
      return;
    }
    if (rest.startsWith("(?")) {
      this.#fail("inline flags like (?i) are only supported at the very start of the pattern (use caseInsensitive instead)");
    }
    this.#i++;
    this.#out += "(";
  }

  /** An escape outside (`inClass` false) or inside a class; appends its translation. */
  #escape(inClass: boolean): void {
    const p = this.#p;
    const c = p[this.#i + 1];
    if (c === undefined) this.#fail("the pattern ends with a lone backslash");
    this.#i += 2;
    const emit = (outside: string, inside: string = outside) => {
      this.#out += inClass ? inside : outside;
    };
    switch (c) {
      case "d":
        return emit(`[${DIGIT}]`, DIGIT);
      case "D":
        return emit("\\P{Nd}", "\\P{Nd}");
      case "w":
        return emit(`[${WORD}]`, WORD);
      case "W":
        if (inClass) this.#fail("\\W inside a character class is not supported; use [^...] with \\w instead");
        return emit(`[^${WORD}]`);
      case "s":
        return emit(`[${SPACE}]`, SPACE);
      case "S":
        return emit("\\P{White_Space}");
      case "b":
        if (inClass) this.#fail("\\b inside a character class is not supported");
        return emit(WORD_BOUNDARY);
      case "B":
        if (inClass) this.#fail("\\B inside a character class is not supported");
        return emit(NOT_WORD_BOUNDARY);
      case "A":
        if (inClass) this.#fail("\\A inside a character class is not supported");
        return emit("^");
      case "z":
        if (inClass) this.#fail("\\z inside a character class is not supported");
        return emit("$");
      case "n":
        // [^\n] is fine (and common); a pattern that must match a line break never can.
        if (!inClass) this.#fail("grep matches one line at a time, so a pattern cannot match a line break (\\n)");
        return emit("\\n");
      case "t":
      case "r":
      case "f":
      case "v":
        return emit(`\\${c}`);
      case "a":
        return emit("\\x07");
      case "x":
        return emit(this.#hex());
      case "p":
      case "P":
        return emit(this.#property(c));
      case "u":
      case "U":
        this.#fail(`\\${c} is not Rust regex syntax; write \\x{HHHH} for a code point`);
      // falls through
      case "k":
        if (p[this.#i] === "<") {
          this.jsOnly = true;
          const end = p.indexOf(">", this.#i);
          if (end < 0) this.#fail("\\k< needs a closing >");
          emit(p.slice(this.#i - 2, end + 1));
          this.#i = end + 1;
          return;
        }
        this.#fail("\\k is only valid as a named backreference \\k<name>");
      // falls through
      default:
        break;
    }
    if (/[1-9]/.test(c)) {
      if (inClass) this.#fail(`\\${c} inside a character class is not supported`);
      this.jsOnly = true;
      return emit(`\\${c}`);
    }
    if (RUST_ESCAPABLE.has(c)) return emit(literal(c), classLiteral(c));
    this.#fail(`unrecognised escape sequence \\${c}`);
  }

  #hex(): string {
    const p = this.#p;
    if (p[this.#i] === "{") {
      const end = p.indexOf("}", this.#i);
      const hex = end < 0 ? "" : p.slice(this.#i + 1, end);
      if (!/^[0-9A-Fa-f]{1,6}$/.test(hex) || Number.parseInt(hex, 16) > 0x10ffff)
        this.#fail("\\x{...} needs 1 to 6 hex digits of a valid code point");
      this.#i = end + 1;
      return `\\u{${hex}}`;
    }
    const hex = p.slice(this.#i, this.#i + 2);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) this.#fail("\\x needs two hex digits or \\x{...}");
    this.#i += 2;
    return `\\x${hex}`;
  }

  #property(c: "p" | "P"): string {
    const p = this.#p;
    let name: string;
    if (p[this.#i] === "{") {
      const end = p.indexOf("}", this.#i);
      if (end < 0) this.#fail(`\\${c}{ needs a closing }`);
      name = p.slice(this.#i + 1, end);
      this.#i = end + 1;
    } else {
      name = p[this.#i] ?? "";
      if (!/^[A-Za-z]$/.test(name)) this.#fail(`\\${c} needs a property name, like \\${c}L or \\${c}{Greek}`);
      this.#i += 1;
    }
    const negated = name.startsWith("^");
    if (negated) name = name.slice(1);
    const kind = negated !== (c === "P") ? "P" : "p";
    // JavaScript needs "Script=" for scripts, which Rust accepts bare (\p{Greek}).
    for (const candidate of [name, `Script=${name}`, name.replace(/[ _-]/g, ""), `Script=${name.replace(/[ _-]/g, "_")}`]) {
      try {
        new RegExp(`\\p{${candidate}}`, "u");
        return `\\${kind}{${candidate}}`;
      } catch {
        // try the next spelling
      }
    }
    this.#fail(`unknown Unicode property "${name}"`);
  }

  #class(): void {
    const p = this.#p;
    this.#i++;
    let out = "[";
    if (p[this.#i] === "^") {
      out += "^";
      this.#i++;
    }
    let first = true;
    for (;;) {
      const ch = p[this.#i];
      if (ch === undefined) this.#fail("a character class [ is not closed with ]");
      if (ch === "]" && !first) {
        this.#i++;
        break;
      }
      first = false;
      if (ch === "[") {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(p.slice(this.#i));
        if (m) {
          if (m[1]) this.#fail("negated POSIX classes like [:^alpha:] are not supported");
          const range = POSIX[m[2]!];
          if (!range) this.#fail(`unknown POSIX class [:${m[2]}:]`);
          out += range;
          this.#i += m[0].length;
          continue;
        }
        this.#fail("nested character classes are not supported; write a single class, escaping [ as \\[");
      }
      if ((ch === "&" || ch === "~" || ch === "-") && p[this.#i + 1] === ch && ch !== "-") {
        this.#fail(`class set operations (${ch}${ch}) are not supported`);
      }
      if (ch === "-" && p[this.#i + 1] === "-") this.#fail("class set operations (--) are not supported");
      if (ch === "\\") {
        const saved = this.#out;
        this.#out = "";
        this.#escape(true);
        out += this.#out;
        this.#out = saved;
        continue;
      }
      if (ch === "\n") this.#fail("grep matches one line at a time, so a pattern cannot contain a line break");
      const s = String.fromCodePoint(p.codePointAt(this.#i)!);
      this.#i += s.length;
      // "-" keeps its range meaning; other characters JavaScript treats specially inside a class are escaped.
      out += s === "-" ? "-" : s === "[" ? "\\[" : s;
    }
    this.#out += `${out}]`;
  }
}

/**
 * Checks and compiles a grep pattern (Rust syntax) into JavaScript matchers, or throws
 * INVALID_ARGS naming what is wrong.
 */
export function compilePattern(pattern: string, caseInsensitive = false): CompiledPattern {
  if (pattern.length === 0) throw new ToolError("INVALID_ARGS", "The pattern is empty; give a regular expression to search for.");
  if (pattern.includes("\0")) throw new ToolError("INVALID_ARGS", "The pattern contains a NUL character; write \\x00 to match one.");
  const t = new Translator(pattern).run();
  if (caseInsensitive) t.flags.add("i");
  const flags = `u${[...t.flags].sort().join("")}`;
  let line: RegExp;
  try {
    line = new RegExp(t.source, flags);
  } catch (err) {
    throw invalid(pattern, (err as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, ""));
  }
  const compiled: CompiledPattern = { original: pattern, source: t.source, flags, line, jsOnly: t.jsOnly };
  if (!t.jsOnly) compiled.scan = new RegExp(t.source, `${flags}gm`);
  return compiled;
}
