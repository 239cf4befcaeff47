import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BaseTool } from "../../src/compat/base-tool.js";
import type { ToolExecutionResult } from "../../src/core/result.js";
import type { ToolConfirmation, ToolContext } from "../../src/core/tool.js";
import { ToolRegistry, type ToolLike } from "../../src/registry/registry.js";
import { ToolRunner } from "../../src/runtime/runner.js";

function runnerWith(tool: ToolLike, answers: boolean[] = []) {
  const registry = new ToolRegistry();
  registry.register(tool);
  const asked: string[] = [];
  const runner = new ToolRunner({
    registry,
    cache: false,
    approval: "safe",
    approver: async (req) => {
      asked.push(req.reason);
      return { approved: answers.shift() ?? false, message: "no" };
    },
  });
  return { runner, asked };
}

describe("spec 001: a class's getConfirmation() decides", () => {
  class Guarded extends BaseTool<{ target: string }> {
    readonly name = "guarded";
    readonly description = "Reads, but asks for targets starting with prod.";
    readonly schema = z.object({ target: z.string() });
    override readonly effect = "read" as const;
    override getConfirmation(params: { target: string }): ToolConfirmation {
      return { required: params.target.startsWith("prod"), message: `touches ${params.target}` };
    }
    async execute(params: { target: string }, _options?: Partial<ToolContext>): Promise<ToolExecutionResult> {
      return { content: `done ${params.target}` };
    }
  }

  it("asks when it says required, with its message, even for a read tool", async () => {
    const { runner, asked } = runnerWith(new Guarded());
    expect((await runner.run({ name: "guarded", args: { target: "prod-db" } })).status).toBe("rejected");
    expect(asked).toEqual(["touches prod-db"]);
    expect((await runner.run({ name: "guarded", args: { target: "dev" } })).status).toBe("success");
    expect(asked).toHaveLength(1);
    await runner.close();
  });

  it("validates when execute is called directly", async () => {
    await expect(new Guarded().execute({ target: 42 } as never)).rejects.toThrow();
  });
});

describe("spec 003: { inputSchema: zod, requiresApproval, execute → { ok, value } }", () => {
  const weather = {
    name: "weather",
    description: "Weather for a city.",
    inputSchema: z.object({ city: z.string() }),
    outputSchema: z.object({ city: z.string(), tempC: z.number() }),
    requiresApproval: false,
    execute: async ({ city }: Record<string, unknown>) =>
      city === "nowhere"
        ? { ok: false as const, error: new Error("no such city") }
        : { ok: true as const, value: { city: String(city), tempC: 21 } },
  };

  it("registers as a zod tool, validates, and maps ok / error results", async () => {
    const { runner, asked } = runnerWith(weather);
    const ok = await runner.run({ name: "weather", args: { city: "Oslo" } });
    expect(ok.status).toBe("success");
    expect(ok.structured).toEqual({ city: "Oslo", tempC: 21 });
    expect(JSON.parse(ok.content)).toEqual({ city: "Oslo", tempC: 21 });
    const failed = await runner.run({ name: "weather", args: { city: "nowhere" } });
    expect(failed.status).toBe("error");
    expect(failed.content).toContain("no such city");
    const invalid = await runner.run({ name: "weather", args: { city: 3 } });
    expect(invalid.error?.code).toBe("INVALID_ARGS");
    expect(asked).toEqual([]);
    await runner.close();
  });

  it("requiresApproval as a boolean or a function is honoured", async () => {
    const always = runnerWith({ ...weather, name: "w1", requiresApproval: true });
    expect((await always.runner.run({ name: "w1", args: { city: "Oslo" } })).status).toBe("rejected");
    const sometimes = runnerWith({ ...weather, name: "w2", requiresApproval: (args: Record<string, unknown>) => args.city === "Paris" });
    expect((await sometimes.runner.run({ name: "w2", args: { city: "Oslo" } })).status).toBe("success");
    expect((await sometimes.runner.run({ name: "w2", args: { city: "Paris" } })).status).toBe("rejected");
    await always.runner.close();
    await sometimes.runner.close();
  });
});

describe("what cannot be a tool is refused at registration, saying what can", () => {
  it("an object without execute or schema", () => {
    expect(() => new ToolRegistry().register({ name: "x", description: "y" } as never)).toThrow(
      /not a tool tackle can register\. Use one of: defineTool/,
    );
  });

  it("a zod 3 schema, with the fix", () => {
    const zod3Like = { _def: { typeName: "ZodObject" }, parse: () => ({}) };
    expect(() =>
      new ToolRegistry().register({
        name: "old",
        description: "d",
        inputSchema: zod3Like,
        execute: async () => ({ ok: true, value: 1 }),
      } as never),
    ).toThrow(/zod 3 schema; tackle needs zod 4 schemas.*zod\/v4/);
  });
});

describe("spec 001 and 003 API names", () => {
  it("registry.registerAll(createBuiltinTools()) works, and toOpenAIFunctions lists them", async () => {
    const { createBuiltinTools } = await import("../../src/index.js");
    const registry = new ToolRegistry();
    registry.registerAll(createBuiltinTools());
    expect(registry.has("read_file")).toBe(true);
    const fns = registry.toOpenAIFunctions();
    expect(fns.find((f) => f.name === "read_file")).toMatchObject({ description: expect.any(String), parameters: { type: "object" } });
  });

  it("an outcome reads as a ToolResult, and ToolError.details reach it", async () => {
    const { toToolResult, ToolError, defineTool: define } = await import("../../src/index.js");
    const registry = new ToolRegistry();
    registry.register(
      define({
        name: "fails",
        description: "Fails with details.",
        effect: "read",
        input: z.object({}),
        execute: async () => {
          throw new ToolError("EXECUTION_ERROR", "quota used up", { details: { quota: 100 } });
        },
      }),
    );
    registry.register(define({ name: "ok", description: "Answers.", effect: "read", input: z.object({}), execute: async () => "fine" }));
    const runner = new ToolRunner({ registry, cache: false, retry: false });
    const failed = await runner.run({ name: "fails", args: {} });
    expect(failed.error?.details).toEqual({ quota: 100 });
    expect(toToolResult(failed)).toEqual({
      ok: false,
      error: { code: "EXECUTION_ERROR", message: "quota used up", details: { quota: 100 } },
    });
    expect(toToolResult(await runner.run({ name: "ok", args: {} }))).toEqual({ ok: true, value: "fine" });
    await runner.close();
  });
});
