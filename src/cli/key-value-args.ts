import type { JsonSchema } from "../core/tool.js";

/**
 * `path=README.md limit=5` as the arguments object a tool takes, each value read by the type its
 * schema gives the parameter: numbers and booleans as such, arrays and objects as JSON, the rest
 * as text (so `name=007` stays "007" for a string parameter). `key=@FILE` reads the value from a file.
 * A word that is a JSON object (`'{"path":"README.md"}'`) gives several at once: no key=value
 * word starts with `{`, so either reading is unambiguous.
 */
export function parseKeyValueArgs(
  pairs: readonly string[],
  schema: JsonSchema,
  readFile: (path: string) => string,
): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, { type?: string | string[] }>;
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    if (pair.trimStart().startsWith("{")) {
      Object.assign(out, jsonObject(pair));
      continue;
    }
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new Error(`"${pair}" is not key=value; write arguments as name=value, or as one JSON object.`);
    const key = pair.slice(0, eq);
    let text = pair.slice(eq + 1);
    if (text.startsWith("@") && text.length > 1) text = readFile(text.slice(1));
    const declared = properties[key]?.type;
    const types = Array.isArray(declared) ? declared : declared ? [declared] : [];
    out[key] = valueFor(key, text, types);
  }
  return out;
}

function jsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${JSON.stringify(text)} is not valid JSON (${(err as Error).message}); quote it for the shell as one word.`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`${JSON.stringify(text)} is not a JSON object.`);
  return value as Record<string, unknown>;
}

function valueFor(key: string, text: string, types: readonly string[]): unknown {
  if (types.includes("string") || types.length === 0) return text;
  if (types.includes("integer") || types.includes("number")) {
    const n = Number(text);
    if (text.trim() === "" || Number.isNaN(n)) throw new Error(`${key} takes a number, not "${text}".`);
    return n;
  }
  if (types.includes("boolean")) {
    if (/^(true|yes|1)$/i.test(text)) return true;
    if (/^(false|no|0)$/i.test(text)) return false;
    throw new Error(`${key} takes true or false, not "${text}".`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(
      `${key} takes ${types.join(" or ")} as JSON, for example ${types.includes("array") ? '\'["a","b"]\'' : "'{\"k\":1}'"}.`,
    );
  }
}
