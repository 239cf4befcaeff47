import type { Word } from "./words.js";

/** Options that take a value as the next word (`grep -e PATTERN`, `rg --glob GLOB`). */
export interface ValuedOptions {
  short: string;
  long: readonly string[];
}

const NO_VALUES: ValuedOptions = { short: "", long: [] };

/**
 * Options before `--`; the rest are operands. When the command's options may take their value as
 * the next word (`valued`), that word is neither an option nor an operand (in `grep -r -e KEY`,
 * KEY is no folder to search).
 */
export function splitOptions(args: readonly Word[], valued: ValuedOptions = NO_VALUES): { options: string[]; operands: Word[] } {
  const options: string[] = [];
  const operands: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.text;
    if (text === "--") {
      for (const word of args.slice(i + 1)) operands.push(word);
      break;
    }
    if (text.length < 2 || !text.startsWith("-")) {
      operands.push(args[i]!);
      continue;
    }
    options.push(text);
    if (takesNextWord(text, valued)) i++;
  }
  return { options, operands };
}

/** Whether option word `text` takes the next word as its value: a valued long option without `=`, or a cluster ending in a valued short one. */
function takesNextWord(text: string, valued: ValuedOptions): boolean {
  return text.startsWith("--")
    ? !text.includes("=") && valued.long.some((l) => abbreviates(text, l))
    : valued.short.includes(text.at(-1)!) && [...text.slice(1, -1)].every((c) => !valued.short.includes(c));
}

/**
 * Where the operands begin for a command that reads options only up to its first operand (getopt's
 * `+`, as command runners do: `entr -r make -j2`): the index of the first word that is neither an
 * option nor an option's value, past a `--`.
 */
export function operandsStart(args: readonly Word[], valued: ValuedOptions = NO_VALUES): number {
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.text;
    if (text === "--") return i + 1;
    if (text.length < 2 || !text.startsWith("-")) return i;
    if (takesNextWord(text, valued)) i++;
  }
  return args.length;
}

/**
 * Whether `option` (`--name` or `--name=value`) is `long` or an abbreviation of it. GNU getopt and
 * git accept any unambiguous prefix (`--o` for `--output` when nothing else starts with `o`); an
 * ambiguous one is refused by the tool, so every prefix counts, whatever its length.
 */
export function abbreviates(option: string, long: string): boolean {
  if (!option.startsWith("--")) return false;
  const name = option.slice(2).split("=")[0]!;
  return name.length > 0 && long.startsWith(name);
}

/**
 * Whether an option list holds a short option (also inside a cluster, `-rf`) or a long one
 * (also as `--name=value` or any prefix of it, as GNU accepts).
 */
export function hasOption(options: readonly string[], short: string, long: readonly string[] = []): boolean {
  return options.some((o) => {
    if (o.startsWith("--")) return long.some((l) => abbreviates(o, l));
    if (!o.startsWith("-")) return false;
    return [...o.slice(1)].some((c) => short.includes(c));
  });
}

/** Whether any option is one of the given ones: long ones also abbreviated or with `=value`, short ones also with a value glued on (`-ofile`). */
export function optionStartsWith(options: readonly string[], prefixes: readonly string[]): boolean {
  return options.some((o) => prefixes.some((p) => (p.startsWith("--") ? abbreviates(o, p.slice(2)) : o.startsWith(p))));
}

/**
 * The values of options that name a file the command reads (`date -f FILE`, `diff --from-file=F`,
 * `grep -fFILE`): as separate words, glued to a short option, or after `=`, abbreviations included.
 */
export function fileOptionValues(args: readonly Word[], short: string, long: readonly string[]): Word[] {
  const values: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.text === "--") break;
    if (a.text.startsWith("--")) {
      if (!long.some((l) => abbreviates(a.text, l))) continue;
      const eq = a.text.indexOf("=");
      if (eq >= 0) values.push({ ...a, text: a.text.slice(eq + 1) });
      else if (args[i + 1]) values.push(args[++i]!);
      continue;
    }
    if (!a.text.startsWith("-") || a.text.length < 2) continue;
    const cluster = a.text.slice(1);
    const at = [...cluster].findIndex((c) => short.includes(c));
    if (at < 0) continue;
    const rest = cluster.slice(at + 1);
    if (rest) values.push({ ...a, text: rest });
    else if (args[i + 1]) values.push(args[++i]!);
  }
  return values;
}

/**
 * The path a word may name: itself, a `key=value`'s value (`of=F`), or an option's value given with
 * it (`--output=F`, `-oF`: a short option's value follows its letter); `@F` is F (curl's `-d@F`,
 * a compiler's response file). Undefined for a bare option.
 */
export function pathInWord(text: string): string | undefined {
  let value: string | undefined = text;
  if (text.startsWith("--")) value = text.includes("=") ? text.slice(text.indexOf("=") + 1) : undefined;
  else if (text.startsWith("-")) value = text.length > 2 ? text.slice(2) : undefined;
  else if (text.includes("=") && !text.startsWith("/")) value = text.slice(text.indexOf("=") + 1);
  return value?.startsWith("@") ? value.slice(1) : value;
}
