import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/define-tool.js";
import { BaseTool } from "../../src/compat/base-tool.js";
import { JsonSchemaTool } from "../../src/compat/json-schema-tool.js";
import { annotationsFor, effectFromAnnotations } from "../../src/core/effect.js";
import type { ToolExecutionResult } from "../../src/core/result.js";
import { ToolError } from "../../src/core/errors.js";
import { ToolRegistry } from "../../src/registry/registry.js";
import { ToolRunner } from "../../src/runtime/runner.js";

const input = z.object({
  path: z.string().describe("File path"),
  limit: z.number().int().positive().optional().describe("Max lines"),
  mode: z.enum(["a", "b"]).default("a"),
});

describe("defineTool", () => {
  const tool = defineTool({
    name: "t",
    title: "T tool",
    description: "Does t.",
    effect: "read",
    input,
    execute: async (a) => JSON.stringify(a),
  });

  it("derives JSON Schema from zod with descriptions and defaults", () => {
    expect(tool.inputSchema).toEqual({
      type: "object",
      properties: {
        path: { type: "string", description: "File path" },
        limit: { type: "integer", exclusiveMinimum: 0, maximum: 9007199254740991, description: "Max lines" },
        mode: { type: "string", enum: ["a", "b"], default: "a" },
      },
      required: ["path"],
    });
    expect(tool.definition).toEqual({ name: "t", displayName: "T tool", description: "Does t.", parameters: tool.inputSchema });
  });

  it("validates with messages that name the field", () => {
    expect(tool.validate({ path: "x" })).toEqual({ valid: true, value: { path: "x", mode: "a" } });
    const bad = tool.validate({ path: 1, mode: "c" });
    expect(bad.valid).toBe(false);
    if (!bad.valid) {
      expect(bad.issues.map((i) => i.path)).toEqual(["path", "mode"]);
      expect(bad.error).toMatch(/^Invalid arguments: path must be a string, not a number; mode must be one of "a", "b"\.$/);
    }
  });

  it("can be executed directly, validating first", async () => {
    expect(await tool.execute({ path: "p" } as never)).toEqual({ content: '{"path":"p","mode":"a"}' });
    await expect(tool.execute({ path: 3 } as never)).rejects.toBeInstanceOf(ToolError);
  });

  it("maps its effect to MCP annotations", () => {
    expect(tool.annotations).toEqual({
      title: "T tool",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it("rejects invalid names with the reason", () => {
    expect(() => defineTool({ name: "bad name!", description: "", effect: "read", input: z.object({}), execute: async () => "" })).toThrow(
      /contains " !"/,
    );
    expect(() =>
      defineTool({ name: "x".repeat(65), description: "", effect: "read", input: z.object({}), execute: async () => "" }),
    ).toThrow(/65 characters; the limit is 64/);
  });

  it("only exposes the optional hooks it was given", () => {
    expect("preview" in tool).toBe(false);
    const withPreview = defineTool({
      name: "p",
      description: "",
      effect: "write",
      input: z.object({}),
      preview: () => "diff",
      execute: async () => "",
    });
    expect(typeof withPreview.preview).toBe("function");
  });
});

describe("BaseTool", () => {
  const schema = z.object({ input: z.string().describe("The input to process") });
  class MyTool extends BaseTool<z.infer<typeof schema>> {
    readonly name = "my_tool";
    readonly description = "Does something useful";
    readonly schema = schema;
    override readonly effect = "read" as const;
    async execute(params: z.infer<typeof schema>): Promise<ToolExecutionResult> {
      return { content: `Processed: ${params.input}` };
    }
  }

  it("gives definition and validation from the schema; subclasses write only execute", async () => {
    const tool = new MyTool();
    expect(tool.definition.parameters).toMatchObject({ properties: { input: { type: "string", description: "The input to process" } } });
    expect(tool.validate({ input: "x" }).valid).toBe(true);
    expect(tool.validate({}).valid).toBe(false);
    expect((await tool.execute({ input: "x" })).content).toBe("Processed: x");
  });

  it("defaults to the careful effect when a subclass says nothing", () => {
    class Plain extends BaseTool<{ a?: string }> {
      readonly name = "plain";
      readonly description = "d";
      readonly schema = z.object({ a: z.string().optional() });
      async execute(): Promise<ToolExecutionResult> {
        return { content: "" };
      }
    }
    expect(new Plain().effect).toBe("execute");
  });
});

describe("JsonSchemaTool (plain objects)", () => {
  const plain = new JsonSchemaTool({
    name: "plain",
    description: "A plain tool.",
    inputSchema: {
      type: "object",
      properties: {
        n: { type: "integer", minimum: 1 },
        tags: { type: "array", items: { type: "string" } },
        email: { type: "string", format: "email" },
      },
      required: ["n"],
      additionalProperties: false,
    },
    execute: async (args) => `got ${JSON.stringify(args)}`,
  });

  it("validates with a real JSON Schema validator", () => {
    expect(plain.validate({ n: 2, tags: ["a"] }).valid).toBe(true);
    const missing = plain.validate({});
    expect(missing.valid || missing.error).toMatch(/Invalid arguments: n is required\./);
    const wrong = plain.validate({ n: 0, tags: [1], extra: true, email: "nope" });
    expect(wrong.valid).toBe(false);
    if (!wrong.valid) {
      expect(wrong.error).toMatch(/n must be >= 1/);
      expect(wrong.error).toMatch(/tags\.0 must be string/);
      expect(wrong.error).toMatch(/unknown field "extra"/);
      expect(wrong.error).toMatch(/email must match format "email"/);
    }
  });

  it("returns strings as results and defaults to the execute effect", async () => {
    expect(await plain.execute({ n: 1 })).toEqual({ content: 'got {"n":1}' });
    expect(plain.effect).toBe("execute");
    expect(plain.annotations.destructiveHint).toBe(true);
  });

  it("survives a broken schema from a third party", () => {
    const broken = new JsonSchemaTool({
      name: "b",
      description: "",
      inputSchema: { type: "object", properties: { x: { type: "no-such-type" } } },
      execute: async () => "",
    });
    expect(broken.validate({ x: 1 }).valid).toBe(true);
  });
});

describe("effects and annotations", () => {
  it("round-trips through annotations", () => {
    for (const effect of ["read", "write", "network", "destructive"] as const) {
      expect(effectFromAnnotations(annotationsFor(effect))).toBe(effect);
    }
    expect(effectFromAnnotations(undefined)).toBe("execute");
    expect(effectFromAnnotations({ readOnlyHint: true, openWorldHint: true })).toBe("network");
  });
});

describe("tool views (aliases, createBuiltinTools)", () => {
  it("answer for a frozen tool with read-only members, keep its class, and list its keys", async () => {
    const frozen = Object.freeze(
      defineTool({
        name: "frozen",
        description: "A frozen tool.",
        effect: "read",
        input: z.object({ x: z.string() }),
        needsApproval: () => false,
        execute: async ({ x }) => x,
      }),
    );
    const registry = new ToolRegistry();
    registry.register(frozen);
    registry.alias("ice", "frozen");
    const view = registry.get("ice")!;
    expect(view.name).toBe("ice");
    expect(view.definition.name).toBe("ice");
    expect(view.needsApproval!({ x: "a" }, undefined as never)).toBe(false);
    expect(view instanceof Object.getPrototypeOf(frozen).constructor).toBe(true);
    expect(Object.keys(view)).toContain("needsApproval");
    expect("needsApproval" in view).toBe(true);
    expect((await new ToolRunner({ registry }).run({ name: "ice", args: { x: "y" } })).content).toBe("y");
  });
});
