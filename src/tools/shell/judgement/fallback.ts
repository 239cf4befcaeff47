import path from "node:path";
import { type SimpleCommand } from "../analysis/command-analysis.js";
import { decodeAnsiC, expandBraces } from "../analysis/words.js";
import type { Word } from "../analysis/words.js";

/**
 * For text the grammar cannot parse: split on operators and blanks, drop quotes and escapes,
 * expand braces, take names without their paths. Crude on purpose: it only ever adds subjects
 * (so deny rules and the dangerous list still see `{rm,-rf,/}`), never removes a question. The
 * text is read once more with its `$'...'` strings decoded (`$'\x72m'` is `rm`).
 */
export function fallbackCommands(source: string): SimpleCommand[] {
  const decoded = source.replace(/\$'((?:[^'\\]|\\[\s\S])*)'/g, (_, body: string) => decodeAnsiC(body));
  return decoded === source ? splitCrudely(source) : [...splitCrudely(source), ...splitCrudely(decoded)];
}

function splitCrudely(source: string): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  for (const segment of source.split(/[;&|\n()`<>]+|\$\(|\bthen\b|\bdo\b|\belse\b/)) {
    const tokens = segment
      .replace(/\\\n/g, "")
      .replace(/['"\\]/g, "")
      .trim()
      .split(/\s+/)
      .filter((t) => t && t !== "{" && t !== "}" && t !== "!")
      .flatMap((t) => expandBraces(t) ?? [t]);
    while (tokens.length && /^(if|elif|while|until|then|do|else|time|coproc|function|!|\{|\})$/.test(tokens[0]!)) tokens.shift();
    if (!tokens.length) continue;
    const words: Word[] = tokens.map((t) => ({
      text: t,
      dynamic: t.includes("$"),
      staticPrefix: t.split("$")[0]!,
      glob: /[*?[]/.test(t),
      brace: false,
      tilde: t.startsWith("~"),
      raw: t,
    }));
    const [first, ...args] = words;
    const name = path.posix.basename(first!.text);
    const text = [name, ...args.map((a) => a.text)].join(" ");
    out.push({
      name,
      args,
      assignments: [],
      text,
      bare: text,
      dynamic: true,
      dynamicName: first!.dynamic,
      cwd: undefined,
      via: ["unparsed"],
      inFunctions: [],
    });
  }
  return out;
}
