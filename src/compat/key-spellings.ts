import { z } from "zod";

/**
 * Configuration keys in another letter case (spec 000's .NET settings: `WorkingDirectory`,
 * `Command`, `Args`, `Url`) or under a synonym (`documentsDirectory`) are renamed to the
 * schema's own key. A key given in both spellings keeps the schema's spelling.
 */
export function foldKeySpellings(raw: unknown, known: readonly string[], synonyms: Readonly<Record<string, string>> = {}): unknown {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return raw;
  const byLower = new Map(known.map((k) => [k.toLowerCase(), k]));
  for (const [alias, key] of Object.entries(synonyms)) byLower.set(alias.toLowerCase(), key);
  const source = raw as Record<string, unknown>;
  const keys = Object.keys(source);
  if (keys.every((k) => known.includes(k) || !byLower.has(k.toLowerCase()))) return raw;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const canonical = known.includes(key) ? key : (byLower.get(key.toLowerCase()) ?? key);
    if (canonical !== key && Object.hasOwn(source, canonical)) continue;
    Object.defineProperty(out, canonical, { value: source[key], enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** `schema`, accepting its keys in any letter case and under `synonyms`. */
export function withKeySpellings<T extends z.ZodObject>(schema: T, synonyms: Readonly<Record<string, string>> = {}) {
  const known = Object.keys(schema.shape);
  return z.preprocess((raw) => foldKeySpellings(raw, known, synonyms), schema);
}
