import type { Word } from "./words.js";

/** Options before `--`; the rest are operands. */
export function splitOptions(args: readonly Word[]): { options: string[]; operands: Word[] } {
  const options: string[] = [];
  const operands: Word[] = [];
  let done = false;
  for (const a of args) {
    if (!done && a.text === "--") {
      done = true;
      continue;
    }
    if (!done && a.text.length > 1 && a.text.startsWith("-")) options.push(a.text);
    else operands.push(a);
  }
  return { options, operands };
}

/**
 * Whether an option list holds a short option (also inside a cluster, `-rf`) or a long one
 * (also as `--name=value` or an unambiguous prefix of at least 4 characters, as GNU accepts).
 */
export function hasOption(options: readonly string[], short: string, long: readonly string[] = []): boolean {
  return options.some((o) => {
    if (o.startsWith("--")) {
      const name = o.slice(2).split("=")[0]!;
      return long.some((l) => l === name || (name.length >= 4 && l.startsWith(name)));
    }
    if (!o.startsWith("-")) return false;
    return [...o.slice(1)].some((c) => short.includes(c));
  });
}

/** Whether any option starts with one of the given prefixes (`--output`, `-o`). */
export function optionStartsWith(options: readonly string[], prefixes: readonly string[]): boolean {
  return options.some((o) => prefixes.some((p) => o === p || o.startsWith(p.startsWith("--") ? `${p}=` : p)));
}
