// Type tests: `npm run typecheck` (tsc over test/) fails when defineTool stops inferring argument types from the schema.
import { expectTypeOf } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/define-tool.js";
import type { ToolContext } from "../../src/core/tool.js";

const search = defineTool({
  name: "search",
  description: "Searches.",
  effect: "read",
  input: z.object({
    query: z.string(),
    limit: z.number().int().default(10),
    tags: z.array(z.string()).optional(),
  }),
  preview: (args) => {
    // Defaults are applied before hooks run, so `limit` is a number here, not number | undefined.
    expectTypeOf(args).toEqualTypeOf<{ query: string; limit: number; tags?: string[] | undefined }>();
    return undefined;
  },
  execute: async (args, ctx) => {
    expectTypeOf(args.query).toEqualTypeOf<string>();
    expectTypeOf(args.limit).toEqualTypeOf<number>();
    expectTypeOf(args.tags).toEqualTypeOf<string[] | undefined>();
    expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
    return `${args.query} ${args.limit}`;
  },
});

// A direct call takes the schema's input and accepts a partial context.
expectTypeOf(search.execute).parameter(0).toMatchTypeOf<{ query: string }>();
expectTypeOf(search.name).toEqualTypeOf<string>();

// A transform that folds an alias: the hooks see the output type.
defineTool({
  name: "read",
  description: "Reads.",
  effect: "read",
  input: z
    .object({ path: z.string().optional(), file_path: z.string().optional() })
    .transform((a) => ({ path: a.path ?? a.file_path ?? "" })),
  execute: async (args) => {
    expectTypeOf(args).toEqualTypeOf<{ path: string }>();
    return args.path;
  },
});

defineTool({
  name: "bad",
  description: "A hook that reads a field the schema does not have does not compile.",
  effect: "read",
  input: z.object({ a: z.string() }),
  // @ts-expect-error: `b` is not in the schema
  execute: async (args) => args.b,
});

// @ts-expect-error: a schema that is not an object of arguments is refused
defineTool({ name: "scalar", description: "x", effect: "read", input: z.string(), execute: async () => "" });
