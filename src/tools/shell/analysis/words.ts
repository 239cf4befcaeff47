import type { Node } from "web-tree-sitter";
import { literalArithmetic } from "./literal-arithmetic.js";

/** One shell word with its quoting undone, as far as that can be done without running anything. */
export interface Word {
  /** The word's value; unresolvable parts keep their source text (`$x`, `$(...)`). */
  text: string;
  /** Some part depends on run time: a variable, a command substitution, arithmetic. */
  dynamic: boolean;
  /** The static text before the first dynamic part (what `$X/` keeps when X is empty: ""). */
  staticPrefix: string;
  /** Contains an unquoted glob character (`*`, `?`, `[`), so bash may expand it to file names. */
  glob: boolean;
  /** Contains unquoted brace expansion (`{a,b}`, `{1..3}`). */
  brace: boolean;
  /** Starts with an unquoted `~`. */
  tilde: boolean;
  /** The source text as written. */
  raw: string;
  /**
   * The grammar put an unescaped newline inside a bare word, which bash never does (tree-sitter-bash
   * reads `ls<newline>\\rm` as one command): the parse cannot be trusted.
   */
  suspicious?: boolean;
}

/** A word whose text is known and means only itself: no expansion, glob or quoting left in it. */
export function literalWord(text: string): Word {
  return { text, dynamic: false, staticPrefix: text, glob: false, brace: false, tilde: false, raw: text };
}

/** Where nested commands found inside words are reported (substitutions run too). */
export type NestedSink = (node: Node) => void;

/** Variables whose value tackle knows before the command runs. */
export interface KnownVariables {
  HOME?: string;
  PWD?: string;
}

const ANSI_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Decodes the body of `$'...'` the way bash does. */
export function decodeAnsiC(body: string): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\" || i === body.length - 1) {
      out += c;
      continue;
    }
    const n = body[++i]!;
    if (n in ANSI_ESCAPES) out += ANSI_ESCAPES[n];
    else if (n === "x") {
      const hex = /^[0-9a-fA-F]{1,2}/.exec(body.slice(i + 1))?.[0] ?? "";
      out += hex ? String.fromCharCode(parseInt(hex, 16)) : "\\x";
      i += hex.length;
    } else if (n === "u" || n === "U") {
      const hex = new RegExp(`^[0-9a-fA-F]{1,${n === "u" ? 4 : 8}}`).exec(body.slice(i + 1))?.[0] ?? "";
      out += hex ? String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff)) : `\\${n}`;
      i += hex.length;
    } else if (/[0-7]/.test(n)) {
      const oct = /^[0-7]{1,3}/.exec(body.slice(i))![0];
      out += String.fromCharCode(parseInt(oct, 8) & 0xff);
      i += oct.length - 1;
    } else if (n === "c") {
      const ch = body[++i];
      out += ch === undefined ? "" : String.fromCharCode(ch.toUpperCase().charCodeAt(0) ^ 0x40);
    } else out += `\\${n}`;
  }
  return out;
}

/** Undoes backslash escapes of an unquoted word, noting unquoted glob and tilde characters. */
function unquoteBare(raw: string): { text: string; glob: boolean; brace: boolean } {
  let text = "";
  let glob = false;
  let brace = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === "\\") {
      const n = raw[i + 1];
      if (n === undefined) break;
      i++;
      if (n !== "\n") text += n;
      continue;
    }
    if (c === "*" || c === "?" || c === "[") glob = true;
    if (c === "{" || c === "}") brace = true;
    text += c;
  }
  return { text, glob, brace };
}

/** Inside double quotes only `\$`, `` \` ``, `\"`, `\\` and `\<newline>` are escapes. */
function unquoteDouble(raw: string): string {
  return raw.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c));
}

/**
 * Resolves a word node. Command substitutions and other nested commands are handed to `nested`
 * so the caller judges them as commands of their own.
 */
export function resolveWord(node: Node, nested: NestedSink, vars: KnownVariables = {}): Word {
  const w: Word = { text: "", dynamic: false, staticPrefix: "", glob: false, brace: false, tilde: false, raw: node.text };
  const add = (text: string, dynamic: boolean) => {
    if (!w.dynamic && !dynamic) w.staticPrefix += text;
    w.text += text;
    if (dynamic) w.dynamic = true;
  };
  const walk = (n: Node, quoted: boolean, first: boolean) => {
    switch (n.type) {
      case "word": {
        if (quoted) return add(n.text, false);
        if (/(^|[^\\])\n/.test(n.text)) w.suspicious = true;
        const u = unquoteBare(n.text);
        if (first && n.text.startsWith("~")) w.tilde = true;
        if (u.glob) w.glob = true;
        if (u.brace && /[{}]/.test(n.text)) w.brace = true;
        return add(u.text, false);
      }
      case "number":
      case "regex":
      case "extglob_pattern":
      case "test_operator":
      case "file_descriptor":
      case "variable_name":
        if (n.type === "extglob_pattern") w.glob = true;
        return add(n.text, false);
      case "raw_string":
        return add(n.text.slice(1, -1), false);
      case "ansi_c_string":
        return add(decodeAnsiC(n.text.slice(2, -1)), false);
      case "string":
      case "translated_string": {
        for (const child of n.namedChildren) if (child) walk(child, true, false);
        // `"$x"` adds nothing static; an empty `""` is still a word.
        return;
      }
      case "string_content":
        return add(unquoteDouble(n.text), false);
      case "concatenation": {
        let i = 0;
        for (const child of n.children) if (child) walk(child, quoted, i++ === 0);
        return;
      }
      case "brace_expression":
        w.brace = true;
        return add(n.text, false);
      case "simple_expansion":
      case "expansion": {
        const name = simpleVariable(n);
        if (name && name in vars && vars[name as keyof KnownVariables] !== undefined)
          return add(vars[name as keyof KnownVariables]!, false);
        for (const child of n.namedChildren) if (child) findNested(child, nested);
        return add(n.text, true);
      }
      case "command_substitution":
      case "process_substitution":
        nested(n);
        return add(n.text, true);
      case "arithmetic_expansion": {
        const known = n.text.startsWith("$((") && n.text.endsWith("))") ? literalArithmetic(n.text.slice(3, -2)) : undefined;
        if (known !== undefined) return add(known, false);
        findNested(n, nested);
        return add(n.text, true);
      }
      default:
        if (!n.isNamed) {
          // punctuation inside concatenations (`=`, `:`) and the `$` of `$"..."`
          if (n.type !== "$" && n.type !== '"') add(n.text, false);
          return;
        }
        findNested(n, nested);
        return add(n.text, true);
    }
  };
  walk(node, false, true);
  return w;
}

/** `$NAME` or `${NAME}` with no operator: the variable's name; otherwise undefined. */
function simpleVariable(n: Node): string | undefined {
  if (n.type === "simple_expansion") return n.namedChildren[0]?.type === "variable_name" ? n.namedChildren[0].text : undefined;
  const kids = n.children.filter((c): c is Node => c !== null);
  if (kids.length === 3 && kids[1]!.type === "variable_name") return kids[1]!.text;
  return undefined;
}

/** Reports every command substitution below `n`. */
export function findNested(n: Node, nested: NestedSink): void {
  if (n.type === "command_substitution" || n.type === "process_substitution") {
    nested(n);
    return;
  }
  for (const child of n.namedChildren) if (child) findNested(child, nested);
}

/**
 * Renders a word for the normalized command text, quoting only where the text would be ambiguous;
 * with `always`, quoted whatever it holds, for bash to run as exactly this word (unquoted, `~root`
 * and `a=~` would be expanded).
 */
export function shellQuote(text: string, always = false): string {
  if (text === "") return "''";
  if (!always && /^[A-Za-z0-9_@%+=:,./~^-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Bash's brace expansion of one word: `{rm,-rf,x}` → rm -rf x, `a{b,c}d` → abd acd,
 * `{1..3}` → 1 2 3. Undefined when it would make more than `limit` words.
 */
export function expandBraces(text: string, limit = 256): string[] | undefined {
  let depth = 0;
  let open = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "{") {
      if (depth++ === 0) open = i;
    } else if (c === "}" && depth > 0 && --depth === 0) {
      const body = text.slice(open + 1, i);
      const alternatives = splitTopLevel(body) ?? sequence(body);
      if (!alternatives) continue;
      const prefix = text.slice(0, open);
      const out: string[] = [];
      for (const alt of alternatives) {
        const tails = expandBraces(alt + text.slice(i + 1), limit);
        if (!tails) return undefined;
        for (const rest of tails) {
          out.push(prefix + rest);
          if (out.length > limit) return undefined;
        }
      }
      return out;
    }
  }
  return [text];
}

/** `a,b,{c,d}` at depth 0 → ["a", "b", "{c,d}"]; undefined without a top-level comma. */
function splitTopLevel(body: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (c === "," && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  if (parts.length === 0) return undefined;
  parts.push(body.slice(start));
  return parts;
}

/** `1..5`, `a..e`, `1..10..2`. */
function sequence(body: string): string[] | undefined {
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
  if (!m) return undefined;
  const numeric = /\d/.test(m[1]!);
  const a = numeric ? Number(m[1]) : m[1]!.charCodeAt(0);
  const b = numeric ? Number(m[2]) : m[2]!.charCodeAt(0);
  const step = Math.abs(Number(m[3] ?? 1)) || 1;
  const out: string[] = [];
  for (let v = a; a <= b ? v <= b : v >= b; v += a <= b ? step : -step) {
    out.push(numeric ? String(v) : String.fromCharCode(v));
    if (out.length > 1000) return undefined;
  }
  return out;
}
