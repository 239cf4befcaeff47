import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/define-tool.js";
import { createRegistry } from "../../src/tools/builtin.js";
import { TOOLSETS } from "../../src/tools/toolsets.js";
import type { ToolGroup } from "../../src/tools/group.js";

// Stand-ins named like the built-ins, so presets can be checked without any group's real work.
const everyName = [...new Set(Object.values(TOOLSETS).flat())];
const canonical = everyName.filter((n) => !["edit", "search_files", "shell_exec"].includes(n));
const fakeGroup: ToolGroup = () =>
  canonical.map((name) => defineTool({ name, description: name, effect: "read", input: z.object({}), execute: async () => name }));
const loaded = { config: {}, env: {}, workspace: process.cwd() };

describe("toolsets", () => {
  it("reproduces each spec's tool list exactly", async () => {
    for (const [toolset, names] of Object.entries(TOOLSETS)) {
      const registry = await createRegistry(loaded, { toolset: toolset as keyof typeof TOOLSETS, groups: [fakeGroup] });
      expect(registry.names().sort(), toolset).toEqual([...names].sort());
    }
  });

  it("lists each tool once by default, while the specs' other names still resolve", async () => {
    const registry = await createRegistry(loaded, { groups: [fakeGroup] });
    const names = registry.names();
    for (const alias of ["edit", "search_files", "shell_exec", "bash"]) {
      expect(names).not.toContain(alias);
      expect(registry.has(alias), alias).toBe(true);
    }
    expect(names).toContain("edit_file");
    expect(names).toContain("shell");
    expect(registry.get("edit")?.name).toBe("edit");
  });

  it("lists only the tools whose groups are switched on", async () => {
    const registry = await createRegistry(loaded, { groups: [() => []] });
    expect(registry.names()).toEqual([]);
  });
});
