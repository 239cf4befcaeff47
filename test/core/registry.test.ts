import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/define-tool.js";
import { ToolRegistry } from "../../src/registry/registry.js";

const make = (name: string) =>
  defineTool({
    name,
    description: `${name} tool`,
    effect: "read",
    input: z.object({ a: z.string().optional() }),
    execute: async () => name,
  });

describe("ToolRegistry", () => {
  it("registers, finds, lists and unregisters (spec 001 FR3)", () => {
    const r = new ToolRegistry();
    r.registerAll([make("one"), make("two")]);
    expect(r.has("one")).toBe(true);
    expect(r.getTool("two")?.name).toBe("two");
    expect(r.get("three")).toBeUndefined();
    expect(r.getAllTools().map((t) => t.name)).toEqual(["one", "two"]);
    expect(r.getAllDefinitions().map((d) => d.name)).toEqual(["one", "two"]);
    expect(r.unregister("one")).toBe(true);
    expect(r.unregister("one")).toBe(false);
    expect(r.list().map((t) => t.name)).toEqual(["two"]);
  });

  it("throws on duplicate names, including aliases", () => {
    const r = new ToolRegistry();
    r.register(make("edit_file"), { aliases: ["edit"] });
    expect(() => r.register(make("edit_file"))).toThrow(/already registered/);
    expect(() => r.register(make("edit"))).toThrow(/alias of "edit_file"/);
    r.register(make("other"));
    expect(() => r.alias("edit", "other")).toThrow(/already registered/);
    // The same alias again for the same tool only says whether it is listed.
    r.alias("edit", "edit_file", { listed: false });
    expect(r.canonicalName("edit")).toBe("edit_file");
  });

  it("says why a name is invalid for model APIs", () => {
    const r = new ToolRegistry();
    expect(() => r.register({ name: "has space", description: "", inputSchema: {}, execute: async () => "" })).toThrow(/letters, digits/);
    expect(() => r.alias("dots.are.bad", "x")).toThrow();
  });

  it("presents aliases under their own names and executes the same tool", async () => {
    const r = new ToolRegistry();
    r.register(make("glob"), { aliases: ["search_files"] });
    const alias = r.get("search_files")!;
    expect(alias.name).toBe("search_files");
    expect(alias.definition.name).toBe("search_files");
    expect(alias.inputSchema).toEqual(r.get("glob")!.inputSchema);
    expect(await alias.execute({})).toEqual({ content: "glob" });
    expect(r.canonicalName("search_files")).toBe("glob");
    expect(r.namesOf("glob")).toEqual(["glob", "search_files"]);
  });

  it("hides unlisted names from listings while they still resolve", () => {
    const r = new ToolRegistry();
    r.register(make("shell"), { aliases: ["shell_exec"], listAliases: false });
    r.register(make("bash"), { listed: false });
    expect(r.names()).toEqual(["shell"]);
    expect(r.get("shell_exec")?.name).toBe("shell_exec");
    expect(r.get("bash")).toBeDefined();
    expect(r.allNames().sort()).toEqual(["bash", "shell", "shell_exec"]);
  });

  it("unregisters a tool with its aliases, or an alias alone", () => {
    const r = new ToolRegistry();
    r.register(make("edit_file"), { aliases: ["edit"] });
    expect(r.unregister("edit")).toBe(true);
    expect(r.has("edit_file")).toBe(true);
    r.alias("edit", "edit_file");
    expect(r.unregister("edit_file")).toBe(true);
    expect(r.has("edit")).toBe(false);
  });

  it("suggests near names and tells listeners about changes", () => {
    const r = new ToolRegistry();
    const changes: string[] = [];
    r.onChange((c) => changes.push(`${c.type}:${c.name}`));
    r.registerAll([make("read_file"), make("write_file"), make("grep")]);
    expect(r.suggest("readfile")).toContain("read_file");
    expect(r.suggest("read_fiel")[0]).toBe("read_file");
    expect(r.suggest("zzzzzz")).toEqual([]);
    r.unregister("grep");
    expect(changes).toEqual(["registered:read_file", "registered:write_file", "registered:grep", "unregistered:grep"]);
  });

  it("does not build a defined tool's JSON Schema when registering it (only when it is first asked for)", () => {
    const tool = defineTool({
      name: "lazy",
      description: "d",
      effect: "read",
      input: z.object({ a: z.string() }),
      execute: async () => "",
    });
    let reads = 0;
    const built = tool.inputSchema;
    Object.defineProperty(tool, "inputSchema", {
      get: () => {
        reads++;
        return built;
      },
    });
    const registry = new ToolRegistry();
    registry.register(tool);
    expect(reads).toBe(0);
    expect(registry.getAllDefinitions()[0]!.parameters).toEqual(built);
    expect(reads).toBe(1);
  });

  it("accepts plain objects with a JSON Schema (spec 000's ITool)", async () => {
    const r = new ToolRegistry();
    const tool = r.register({
      name: "plain",
      description: "d",
      inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      execute: async (args) => `q=${String(args.q)}`,
    });
    expect(tool.validate({}).valid).toBe(false);
    expect(await tool.execute({ q: "x" })).toEqual({ content: "q=x" });
  });
});
