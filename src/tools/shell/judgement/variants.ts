/*
 * A line whose own variables take values written in it (`for i in 1 2; do echo tick $i; done`)
 * is judged as each line those values make: rules and checks see `echo tick 1`, not `$i`.
 */
/** Most variants of a line a loop's values may make before it is left to a person. */
const MAX_VARIANTS = 32;

const NAME = "[A-Za-z_][A-Za-z0-9_]*";

const SETS_VARIABLES =
  /(?:^|[\s;&|(`])(?:read|mapfile|readarray|getopts|select|let|declare|typeset|local|readonly|export|unset|shift|set|source|eval|printf\s+-v|\.)(?=[\s;&|)]|$)/;

/** A value bash takes as it stands: no expansion, quoting or operator in it. */
const STATIC_VALUE = /^[^\s;&|$`"'()<>\\{}]*$/;

/**
 * The values variables set in the line itself take: `for i in 1 2` and `f=notes.txt`, when they
 * are plain words. A variable set from anything else (`x=$(cat a)`, the environment) is absent.
 */
function lineVariables(command: string): Map<string, string[]> | undefined {
  // Builtins that set variables from input or by name: their values are not in the line.
  if (SETS_VARIABLES.test(command)) return undefined;
  const values = new Map<string, string[]>();
  const add = (name: string, list: string[]) => values.set(name, [...new Set([...(values.get(name) ?? []), ...list])]);
  for (const m of command.matchAll(new RegExp(`\\bfor\\s+(${NAME})\\s+in\\s+([^;\\n]*?)\\s*[;\\n]\\s*do\\b`, "g"))) {
    const words = m[2]!.split(/\s+/).filter(Boolean);
    if (!words.every((w) => STATIC_VALUE.test(w))) return undefined;
    add(m[1]!, words);
  }
  for (const m of command.matchAll(new RegExp(`(?:^|[;&|\\s(])(${NAME})=(\\S*)`, "g"))) {
    const value = m[2]!.replace(/[;&|)]+$/, "");
    if (!STATIC_VALUE.test(value)) return undefined;
    add(m[1]!, [value]);
  }
  return values;
}

/**
 * The line once for each combination of the values its own variables take, each reference
 * replaced by the value: `for i in 1 2; do echo tick $i; done` gives `... echo tick 1 ...` and
 * `... echo tick 2 ...`. Undefined when some variable's value is not in the line, or there
 * would be too many.
 */
export function variantsOf(command: string): string[] | undefined {
  const values = lineVariables(command);
  if (!values) return undefined;
  const used = [...command.matchAll(new RegExp(`\\$\\{?(${NAME})`, "g"))].map((m) => m[1]!);
  if (used.length === 0 || !used.every((n) => values.has(n))) return undefined;
  let variants = [command];
  for (const name of new Set(used)) {
    const reference = new RegExp(`\\$(?:\\{${name}\\}|${name}(?![A-Za-z0-9_]))`, "g");
    variants = variants.flatMap((v) => values.get(name)!.map((value) => v.replace(reference, () => value)));
    if (variants.length > MAX_VARIANTS) return undefined;
  }
  return variants;
}
