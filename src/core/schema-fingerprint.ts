import { createHash } from "node:crypto";
import { z } from "zod";

/*
 * A name for everything zod's JSON Schema conversion reads of a schema, so a conversion kept from
 * an earlier process can be used for a schema built the same way (core/schema.ts). It covers each
 * schema's definition, its kind (zod's traits), its metadata (descriptions, titles) and the schema
 * it was derived from, recursively; anything it does not know, it refuses, and the schema is then
 * converted afresh. Converting tackle's ~40 schemas took 12-19 ms of every `tackle mcp` start.
 */

/** Functions a definition may hold that play no part in its JSON Schema: error messages, refinements, transforms (.trim() among them), when a check runs. */
const NOT_CONVERTED = new Set(["error", "fn", "transform", "tx", "when"]);
/** A schema larger than this is converted rather than named (no tool's comes near). */
const MAX_VALUES = 50_000;

interface ZodInternals {
  def: unknown;
  constr?: { name?: string };
  traits?: Set<string>;
  parent?: object;
  toJSONSchema?: unknown;
}

function internals(value: object): ZodInternals | undefined {
  const zod = (value as { _zod?: ZodInternals })._zod;
  return zod && typeof zod === "object" && "def" in zod ? zod : undefined;
}

/** The schema's name for reusing its conversion, or undefined when it holds something not known to be safe to name. */
export function schemaFingerprint(schema: z.ZodType): string | undefined {
  const parts: string[] = [];
  const seen = new Map<object, number>();
  let budget = MAX_VALUES;
  // Every value ends with a comma, so no two sequences of values read the same ([1, 2] and [12]).
  const token = (text: string): true => {
    parts.push(text, ",");
    return true;
  };

  const value = (v: unknown, key: string | undefined): boolean => {
    if (--budget < 0) return false;
    switch (typeof v) {
      case "string":
        return token(JSON.stringify(v));
      case "number":
        return token(Object.is(v, -0) ? "-0" : String(v));
      case "boolean":
        return token(v ? "T" : "F");
      case "bigint":
        return token(`${v}n`);
      case "undefined":
        return token("U");
      case "symbol":
        return false;
      case "function":
        // z.lazy's definition names its schema through a getter, which the conversion calls too.
        if (key === "getter") return value((v as () => unknown)(), undefined);
        return key !== undefined && NOT_CONVERTED.has(key) && token("F");
    }
    if (v === null || typeof v !== "object") return v === null && token("N");
    const at = seen.get(v);
    if (at !== undefined) return token(`@${at}`);
    seen.set(v, seen.size);
    const zod = internals(v);
    if (zod) {
      // A schema may carry its own conversion: it is not named.
      if (zod.toJSONSchema !== undefined) return false;
      // Its kind: the zod class that made it (which sets its traits), or the traits where there is none.
      parts.push(`Z${zod.constr?.name ?? JSON.stringify([...(zod.traits ?? [])])}(`);
      if (!value(zod.def, "def")) return false;
      parts.push(";");
      if (!value(z.globalRegistry.get(v as z.ZodType), "meta")) return false;
      parts.push(";");
      if (!value(zod.parent, "parent")) return false;
      parts.push(")");
      return true;
    }
    if (Array.isArray(v)) {
      parts.push("[");
      for (const item of v) if (!value(item, undefined)) return false;
      parts.push("]");
      return true;
    }
    if (v instanceof RegExp) return token(`R${JSON.stringify([v.source, v.flags])}`);
    if (v instanceof Set) return value([...v], undefined);
    if (v instanceof Date) return token(`D${v.getTime()}`);
    const proto = Object.getPrototypeOf(v) as unknown;
    if ((proto !== Object.prototype && proto !== null) || Object.getOwnPropertySymbols(v).length > 0) return false;
    parts.push("{");
    // Every own property, those defined as not enumerable included; a getter gives its value.
    for (const name of Object.getOwnPropertyNames(v)) {
      parts.push(`${JSON.stringify(name)}:`);
      if (!value((v as Record<string, unknown>)[name], name)) return false;
    }
    parts.push("}");
    return true;
  };

  try {
    if (!value(schema, undefined)) return undefined;
  } catch {
    return undefined;
  }
  return createHash("sha256").update(parts.join("")).digest("base64url");
}
