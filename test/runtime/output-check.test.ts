import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/define-tool.js";
import { ToolRegistry } from "../../src/registry/registry.js";
import { ToolRunner } from "../../src/runtime/runner.js";

const liar = defineTool({
  name: "liar",
  description: "Says it returns a count, returns text.",
  effect: "read",
  input: z.object({ honest: z.boolean() }),
  output: z.object({ count: z.number() }),
  execute: async ({ honest }) => ({ content: "done", structured: honest ? { count: 1 } : { count: "one" } }),
});

function runner(checkOutput: boolean) {
  const registry = new ToolRegistry();
  registry.register(liar);
  return new ToolRunner({ registry, cache: false, checkOutput });
}

describe("structured results against the output schema", () => {
  it("a mismatch is an error naming the field, when checking is on", async () => {
    const r = runner(true);
    expect((await r.run({ name: "liar", args: { honest: true } })).status).toBe("success");
    const out = await r.run({ name: "liar", args: { honest: false } });
    expect(out.status).toBe("error");
    expect(out.content).toContain("liar returned a structured result that does not match its output schema: /count must be number.");
    await r.close();
  });

  it("is not checked when checking is off (the default outside tackle's tests)", async () => {
    const r = runner(false);
    expect((await r.run({ name: "liar", args: { honest: false } })).status).toBe("success");
    await r.close();
  });

  it("is on in this test run", () => {
    expect(process.env.TACKLE_CHECK_OUTPUT).toBe("1");
  });
});
