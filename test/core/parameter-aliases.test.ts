import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/define-tool.js";
import { foldAliases } from "../../src/core/parameter-aliases.js";

const tool = defineTool({
  name: "aliased",
  description: "probe",
  input: z.object({ text: z.string(), limit: z.number().optional() }),
  parameterAliases: { body: "text", max: "limit" },
  effect: "read",
  execute: async (a) => `${a.text}:${a.limit ?? "-"}`,
});

describe("parameter aliases", () => {
  it("are accepted from callers, folded into the canonical name", async () => {
    expect(await tool.execute({ body: "hi", max: 3 } as never)).toMatchObject({ content: "hi:3" });
    expect(tool.validate({ text: "a", body: "a" })).toMatchObject({ valid: true, value: { text: "a" } });
  });

  it("are left out of the published schema", () => {
    expect(Object.keys((tool.inputSchema as { properties: object }).properties).sort()).toEqual(["limit", "text"]);
  });

  it("name the canonical parameter in errors", () => {
    const missing = tool.validate({ max: 2 });
    expect(missing.valid).toBe(false);
    expect(missing.error).toMatch(/^Invalid arguments: text is required \(a string\)\.$/);
    const wrongType = tool.validate({ body: 5 });
    expect(wrongType.error).toBe("Invalid arguments: text must be a string, not a number.");
    const clash = tool.validate({ text: "a", body: "b" });
    expect(clash.error).toBe('Invalid arguments: text: given twice with different values (as "text" and as "body"); send only "text".');
  });

  it("leave arguments without aliases untouched (same object)", () => {
    const args = { text: "a" };
    expect(foldAliases(args, { body: "text" }).args).toBe(args);
    expect(foldAliases(args, undefined).args).toBe(args);
  });

  it("do not let a prototype key through", () => {
    const folded = foldAliases(JSON.parse('{"__proto__": {"x": 1}, "body": "a"}'), { body: "text" }).args as Record<string, unknown>;
    expect(Object.getPrototypeOf(folded)).toBe(Object.prototype);
  });
});
