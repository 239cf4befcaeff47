// Spec 003 (Tool System Specification), read as its reader would: its core tools by their
// parameters, its Tool object with zod schemas and requiresApproval, the registry's
// toOpenAIFunctions, the approval gate with modifiedArgs, and ToolResult.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRegistry, loadConfig, toToolResult, ToolRegistry, ToolRunner, type SearchProvider } from "../../src/index.js";
import { useWorkspace } from "./helpers.js";

const ws = useWorkspace({ "notes.txt": "first\n" });

describe("spec 003: the Tool object as written", () => {
  const readFileTool = {
    name: "read_notes",
    description: "Read the contents of a file in the workspace",
    inputSchema: z
      .object({ path: z.string().describe("Path relative to workspace root"), encoding: z.enum(["utf-8", "base64"]).optional() })
      .describe("read_file input"),
    outputSchema: z.object({ content: z.string(), size: z.number(), modified: z.string() }),
    requiresApproval: false,
    async execute(args: unknown) {
      const { path: p } = z.object({ path: z.string() }).parse(args);
      const text = readFileSync(path.join(ws.dir, p), "utf8");
      return { ok: true as const, value: { content: text, size: text.length, modified: "2026-01-01T00:00:00Z" } };
    },
  };

  it("registers, is offered through toOpenAIFunctions, runs, and reads back as a ToolResult", async () => {
    const registry = new ToolRegistry();
    registry.register(readFileTool);
    expect(registry.toOpenAIFunctions()).toEqual([
      {
        name: "read_notes",
        description: "Read the contents of a file in the workspace",
        parameters: expect.objectContaining({ type: "object" }),
      },
    ]);
    const runner = new ToolRunner({ registry, workspace: ws.dir });
    const outcome = await runner.run({ name: "read_notes", args: { path: "notes.txt" } });
    expect(toToolResult(outcome)).toEqual({ ok: true, value: { content: "first\n", size: 6, modified: "2026-01-01T00:00:00Z" } });
    await runner.close();
  });

  it("dynamic approval: requiresApproval(args) asks only when overwriting", async () => {
    const writeTool = {
      name: "write_notes",
      description: "Writes a file.",
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      outputSchema: z.object({ written: z.number() }),
      requiresApproval: (args: unknown) => existsSync(path.join(ws.dir, (args as { path: string }).path)),
      async execute(args: unknown) {
        const { path: p, content } = args as { path: string; content: string };
        writeFileSync(path.join(ws.dir, p), content);
        return { ok: true as const, value: { written: content.length } };
      },
    };
    const registry = new ToolRegistry();
    registry.register(writeTool);
    const asked: string[] = [];
    const runner = new ToolRunner({ registry, workspace: ws.dir, approver: async (r) => (asked.push(r.tool), { approved: false }) });
    expect((await runner.run({ name: "write_notes", args: { path: "fresh.txt", content: "x" } })).status).toBe("success");
    expect((await runner.run({ name: "write_notes", args: { path: "notes.txt", content: "x" } })).status).toBe("rejected");
    expect(asked).toEqual(["write_notes"]);
    await runner.close();
  });
});

describe("spec 003: ToolResult errors and the approval request as written", () => {
  const failing = (error: unknown) => ({
    name: "read_config",
    description: "Reads a config file.",
    inputSchema: z.object({ path: z.string() }),
    requiresApproval: false,
    async execute() {
      return { ok: false as const, error };
    },
  });

  it("{ ok: false, error: { code, message, details } } reaches the outcome as given, a code of the tool's own too", async () => {
    for (const code of ["FILE_NOT_FOUND", "QUOTA_EXCEEDED"]) {
      const registry = new ToolRegistry();
      registry.register(failing({ code, message: "config.yml is not there", details: { path: "config.yml" } }));
      const runner = new ToolRunner({ registry, workspace: ws.dir });
      const outcome = await runner.run({ name: "read_config", args: { path: "config.yml" } });
      expect(outcome.error).toMatchObject({ code, message: "config.yml is not there", details: { path: "config.yml" } });
      expect(toToolResult(outcome)).toEqual({
        ok: false,
        error: { code, message: "config.yml is not there", details: { path: "config.yml" } },
      });
      await runner.close();
    }
  });

  it("the ApprovalRequest carries stepId, and a write tool's reason speaks of files", async () => {
    const writeTool = {
      name: "write_notes",
      description: "Writes a file.",
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      requiresApproval: true,
      async execute() {
        return { ok: true as const, value: { written: 1 } };
      },
    };
    const registry = new ToolRegistry();
    registry.register(writeTool);
    const requests: Array<{ stepId?: string; toolCallId: string; reason: string }> = [];
    const runner = new ToolRunner({ registry, workspace: ws.dir, approver: async (r) => (requests.push(r), { approved: true }) });
    await runner.run({ id: "step-7", name: "write_notes", args: { path: "a.txt", content: "x" } });
    expect(requests[0]).toMatchObject({ stepId: "step-7", toolCallId: "step-7" });
    expect(requests[0]!.reason).toMatch(/files/);
    expect(requests[0]!.reason).not.toMatch(/command/);
    await runner.close();
  });
});

describe("spec 003: the core tools and the approval gate", () => {
  const provider: SearchProvider = {
    name: "Fixed",
    search: async (query, count) =>
      Array.from({ length: count }, (_, i) => ({ title: `${query} ${i}`, url: `https://e.org/${i}`, description: "d" })),
  };

  it("list_directory, read_file, write_file (createDirs), delete_file, move_file, web_search (numResults)", async () => {
    const registry = await createRegistry(loadConfig({ dir: ws.dir, env: {} }), { toolset: "workspace", searchProvider: provider });
    for (const name of ["list_directory", "read_file", "write_file", "delete_file", "move_file", "run_code", "web_fetch", "web_search"]) {
      expect(registry.has(name), name).toBe(true);
    }
    const runner = new ToolRunner({ registry, workspace: ws.dir, approval: "all" });
    const run = (name: string, args: Record<string, unknown>) => runner.run({ name, args });
    expect((await run("write_file", { path: "a/b/c.txt", content: "deep", createDirs: true })).status).toBe("success");
    expect((await run("list_directory", { path: "a", recursive: true })).content).toContain("c.txt");
    expect((await run("move_file", { from: "a/b/c.txt", to: "c.txt" })).status).toBe("success");
    expect((await run("read_file", { path: "c.txt" })).content).toContain("deep");
    expect((await run("delete_file", { path: "c.txt" })).status).toBe("success");
    const found = await run("web_search", { query: "tackle", numResults: 2 });
    expect((found.structured as { results: unknown[] }).results).toHaveLength(2);
    await runner.close();
  });

  it("the approval gate: a person may modify the arguments before approving", async () => {
    const registry = await createRegistry(loadConfig({ dir: ws.dir, env: {} }), { toolset: "workspace" });
    const runner = new ToolRunner({
      registry,
      workspace: ws.dir,
      approval: "safe",
      approver: async (request) => ({ approved: true, modifiedArgs: { ...request.args, content: "edited by a person\n" } }),
    });
    const outcome = await runner.run({ name: "write_file", args: { path: "notes.txt", content: "from the model\n" } });
    expect(outcome.status).toBe("success");
    expect(readFileSync(path.join(ws.dir, "notes.txt"), "utf8")).toBe("edited by a person\n");
    await runner.close();
  });
});
