import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { schemaFingerprint } from "../../src/core/schema-fingerprint.js";
import { toJsonSchema, useJsonSchemaStore, type JsonSchemaStore } from "../../src/core/schema.js";
import { createRegistry } from "../../src/tools/builtin.js";
import { loadConfig } from "../../src/config/config.js";
import { tempDir } from "../support/tools.js";

// A conversion kept from an earlier process is used only for a schema with the same fingerprint:
// whatever changes a schema's JSON Schema must change its fingerprint.
const base = () =>
  z.object({
    path: z.string().min(1).describe("Where."),
    limit: z.number().int().positive().optional(),
    mode: z.enum(["a", "b"]).default("a"),
    tags: z.array(z.string().regex(/^[a-z]+$/)).max(5),
  });

describe("schemaFingerprint", () => {
  it("is the same for schemas built the same way", () => {
    expect(schemaFingerprint(base())).toBeDefined();
    expect(schemaFingerprint(base())).toBe(schemaFingerprint(base()));
  });

  it("differs for every change that changes the JSON Schema", () => {
    const variants: z.ZodType[] = [
      base().extend({ path: z.string().min(1).describe("Where else.") }),
      base().extend({ path: z.string().min(2).describe("Where.") }),
      base().extend({ path: z.string().max(1).describe("Where.") }),
      base().extend({ limit: z.number().int().positive() }),
      base().extend({ limit: z.number().positive().optional() }),
      base().extend({ mode: z.enum(["a", "c"]).default("a") }),
      base().extend({ mode: z.enum(["a", "b"]).default("b") }),
      base().extend({ tags: z.array(z.string().regex(/^[a-z]*$/)).max(5) }),
      base().extend({ tags: z.array(z.string().regex(/^[a-z]+$/i)).max(5) }),
      base().extend({ tags: z.array(z.number()).max(5) }),
      base().extend({ extra: z.boolean() }),
      base().meta({ title: "Read" }),
      base().describe("Reads."),
      base().strict(),
      base().partial(),
      z.object({ limit: z.number().int().positive().optional(), path: z.string().min(1).describe("Where.") }),
    ];
    const own = schemaFingerprint(base());
    const all = variants.map((v) => schemaFingerprint(v));
    for (const [i, f] of all.entries()) {
      expect(f, `variant ${i}`).toBeDefined();
      expect(f, `variant ${i}`).not.toBe(own);
    }
    expect(new Set(all).size).toBe(all.length);
  });

  it("cannot be made to read two sequences of values alike", () => {
    expect(schemaFingerprint(z.literal([1, 2]))).not.toBe(schemaFingerprint(z.literal([12])));
    expect(schemaFingerprint(z.enum(["a", "bc"]))).not.toBe(schemaFingerprint(z.enum(["ab", "c"])));
    expect(schemaFingerprint(z.literal("1"))).not.toBe(schemaFingerprint(z.literal(1)));
  });

  it("names recursive schemas, and sees a change inside them", () => {
    type Tree = { name: string; children: Tree[] };
    const tree = (min: number): z.ZodType<Tree> => {
      const node: z.ZodType<Tree> = z.lazy(() => z.object({ name: z.string().min(min), children: z.array(node) }));
      return node;
    };
    expect(schemaFingerprint(tree(1))).toBeDefined();
    expect(schemaFingerprint(tree(1))).toBe(schemaFingerprint(tree(1)));
    expect(schemaFingerprint(tree(2))).not.toBe(schemaFingerprint(tree(1)));
  });

  it("refuses what it does not know: an unknown function, a symbol, a schema's own conversion", () => {
    const withFunction = z.string();
    (withFunction._zod.def as unknown as Record<string, unknown>)["surprise"] = () => "x";
    expect(schemaFingerprint(z.object({ a: withFunction }))).toBeUndefined();
    const withSymbol = z.string();
    (withSymbol._zod.def as unknown as Record<symbol, unknown>)[Symbol("s")] = 1;
    expect(schemaFingerprint(withSymbol)).toBeUndefined();
    const overridden = z.string();
    (overridden._zod as unknown as Record<string, unknown>)["toJSONSchema"] = () => ({ type: "number" });
    expect(schemaFingerprint(overridden)).toBeUndefined();
  });
});

describe("toJsonSchema with a store", () => {
  afterEach(() => useJsonSchemaStore(undefined));

  function memoryStore(): JsonSchemaStore & { map: Map<string, string> } {
    const map = new Map<string, string>();
    return { map, get: (k) => map.get(k), set: (k, v) => void map.set(k, v) };
  }

  it("gives every built-in tool's schemas exactly as converting them does, from the store the second time", async () => {
    const ws = tempDir();
    try {
      const tools = (await createRegistry(loadConfig({ workspace: ws.dir }))).list();
      const schemas = tools.flatMap((t) => {
        const inner = t as unknown as { schema?: z.ZodType; output?: z.ZodType };
        return [inner.schema, inner.output].filter((s): s is z.ZodType => s !== undefined);
      });
      expect(schemas.length).toBeGreaterThan(20);
      const direct = schemas.map((s) => toJsonSchema(s));
      const store = memoryStore();
      useJsonSchemaStore(store);
      expect(schemas.map((s) => toJsonSchema(s))).toEqual(direct);
      // Every one of tackle's own is named (nothing refused), and the second time comes from the store.
      expect(new Set(schemas.map((s) => schemaFingerprint(s))).has(undefined)).toBe(false);
      const taken = store.map.size;
      let reads = 0;
      useJsonSchemaStore({ get: (k) => (reads++, store.map.get(k)), set: () => expect.unreachable("converted again") });
      expect(schemas.map((s) => toJsonSchema(s))).toEqual(direct);
      expect(reads).toBe(schemas.length);
      expect(taken).toBeGreaterThan(20);
    } finally {
      ws.cleanup();
    }
  });

  it("answers each call with its own object", () => {
    useJsonSchemaStore(memoryStore());
    const first = toJsonSchema(base());
    (first as Record<string, unknown>)["mutated"] = true;
    const second = toJsonSchema(base());
    expect(second).not.toHaveProperty("mutated");
    (second as Record<string, unknown>)["mutated"] = true;
    expect(toJsonSchema(base())).not.toHaveProperty("mutated");
  });
});
