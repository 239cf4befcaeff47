// Spec 002 (Tool System), read as its reader would: its tool categories by name, approval
// levels, result formats, custom tools, path and command validation, caching and parallel runs.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRegistry, defineTool, loadConfig, ToolRegistry, ToolRunner, type ApprovalRequest } from "../../src/index.js";
import { useWorkspace } from "./helpers.js";

const ws = useWorkspace({ "main.ts": "export const x = 1;\n" });

async function editorRunner(approval: "safe" | "all" = "safe", asked: ApprovalRequest[] = []) {
  const registry = await createRegistry(loadConfig({ dir: ws.dir, env: {} }), { toolset: "editor" });
  return new ToolRunner({ registry, workspace: ws.dir, approval, approver: async (r) => (asked.push(r), { approved: true }) });
}

describe("spec 002: categories and approval levels", () => {
  it("offers its categories' tools by its names", async () => {
    const registry = await createRegistry(loadConfig({ dir: ws.dir, env: {} }), { toolset: "editor" });
    const names = registry.list().map((t) => t.name);
    for (const name of [
      "read_file",
      "write_file",
      "edit_file",
      "search_files",
      "delete_file",
      "list_directory",
      "create_directory",
      "copy_file",
      "git_status",
      "git_diff",
      "git_commit",
      "git_branch",
      "git_log",
      "git_push",
      "diagnostics",
      "symbols",
      "hover",
      "definition",
      "references",
      "shell_exec",
      "shell_background",
    ]) {
      expect(names, name).toContain(name);
    }
  });

  it("read-only tools run unasked, write tools ask, dangerous ones ask even under an allow-all mode's rules", async () => {
    const asked: ApprovalRequest[] = [];
    const runner = await editorRunner("safe", asked);
    expect((await runner.run({ name: "read_file", args: { path: "main.ts" } })).approvedBy).toBe("auto");
    expect(asked).toHaveLength(0);
    expect((await runner.run({ name: "edit_file", args: { path: "main.ts", old: "1", new: "2" } })).status).toBe("success");
    expect(asked.map((r) => r.tool)).toEqual(["edit_file"]);
    expect((await runner.run({ name: "delete_file", args: { path: "main.ts" } })).status).toBe("success");
    expect(asked.map((r) => r.tool)).toEqual(["edit_file", "delete_file"]);
    await runner.close();
  });

  it("result formats: success, error with a code, rejected with the user's message", async () => {
    const registry = await createRegistry(loadConfig({ dir: ws.dir, env: {} }), { toolset: "editor" });
    const runner = new ToolRunner({ registry, workspace: ws.dir, approver: async () => ({ approved: false, message: "not now" }) });
    const ok = await runner.run({ name: "read_file", args: { path: "main.ts" } });
    expect(ok).toMatchObject({ status: "success", toolName: "read_file", executionTimeMs: expect.any(Number) });
    const failed = await runner.run({ name: "read_file", args: { path: "missing.ts" } });
    expect(failed).toMatchObject({ status: "error", error: { code: "FILE_NOT_FOUND", recoverable: expect.any(Boolean) } });
    const rejected = await runner.run({ name: "write_file", args: { path: "main.ts", content: "x" } });
    expect(rejected).toMatchObject({ status: "rejected", userMessage: "not now" });
    await runner.close();
  });
});

describe("spec 002: custom tools, validation, caching, parallel runs", () => {
  it("a custom tool defined by name, description, a JSON Schema and an execute function; a shape it cannot take is refused", async () => {
    const registry = new ToolRegistry();
    expect(() => registry.register({ name: "deploy", description: "Deploy", parameters: {} } as never)).toThrow(/Use one of: defineTool/);
    registry.register({
      name: "word_count",
      description: "Counts words.",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      execute: async (args: Record<string, unknown>) => String(String(args.text).split(/\s+/).filter(Boolean).length),
    });
    const runner = new ToolRunner({ registry, workspace: ws.dir, approval: "all" });
    expect((await runner.run({ name: "word_count", args: { text: "one two three" } })).content).toBe("3");
    expect((await runner.run({ name: "word_count", args: {} })).error?.code).toBe("INVALID_ARGS");
    await runner.close();
  });

  it("path validation refuses traversal; command validation refuses what it must in every mode", async () => {
    const runner = await editorRunner("all");
    expect((await runner.run({ name: "read_file", args: { path: "../../etc/passwd" } })).status).not.toBe("success");
    expect((await runner.run({ name: "shell_exec", args: { command: "rm -rf /" } })).status).toBe("rejected");
    expect((await runner.run({ name: "shell_exec", args: { command: "dd if=/dev/zero of=/tmp/x bs=1 count=1" } })).status).toBe("rejected");
    await runner.close();
  });

  it("caches read results until a write changes the file", async () => {
    const runner = await editorRunner("all");
    const first = await runner.run({ name: "read_file", args: { path: "main.ts" } });
    const again = await runner.run({ name: "read_file", args: { path: "main.ts" } });
    expect(again.metadata?.cached).toBe(true);
    await runner.run({ name: "write_file", args: { path: "main.ts", content: "export const x = 3;\n" } });
    const after = await runner.run({ name: "read_file", args: { path: "main.ts" } });
    expect(after.metadata?.cached).toBeUndefined();
    expect(after.content).not.toBe(first.content);
    await runner.close();
  });

  it("runs independent calls in parallel: two that each wait for the other both finish", async () => {
    const arrived = new Set<string>();
    let wake: () => void = () => {};
    const meet = (name: string) =>
      defineTool({
        name,
        description: "Waits until its partner has started.",
        effect: "read",
        input: z.object({}),
        execute: async () => {
          arrived.add(name);
          wake();
          while (arrived.size < 2) await new Promise<void>((resolve) => (wake = resolve));
          return `${name} met its partner`;
        },
      });
    const registry = new ToolRegistry();
    registry.registerAll([meet("left"), meet("right")]);
    const runner = new ToolRunner({ registry, workspace: ws.dir, cache: false });
    const outcomes = await runner.runAll([
      { name: "left", args: {} },
      { name: "right", args: {} },
    ]);
    expect(outcomes.map((o) => o.content)).toEqual(["left met its partner", "right met its partner"]);
    await runner.close();
  });
});

describe("spec 002: custom tools as it writes them", () => {
  it("accepts category and requires_approval, and requires_approval decides whether a person is asked", async () => {
    const tool = (requires: boolean) => ({
      description: "Deploy application to staging",
      category: "custom",
      parameters: { type: "object", properties: { environment: { type: "string" } }, required: ["environment"] },
      command: [process.execPath, "-e", "console.log('deployed ' + process.argv[1])", "{environment}"],
      requires_approval: requires,
    });
    const dir = path.join(ws.dir, "custom-tools");
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "tackle.config.json"), JSON.stringify({ tools: { deploy: tool(true), preview: tool(false) } }));
    const registry = await createRegistry(loadConfig({ dir, env: {} }));
    expect(registry.get("deploy")?.title).toBe("deploy (custom)");
    const asked: string[] = [];
    const runner = new ToolRunner({
      registry,
      workspace: ws.dir,
      approver: async (r: ApprovalRequest) => (asked.push(r.tool), { approved: true }),
    });
    expect((await runner.run({ name: "deploy", args: { environment: "staging" } })).content).toContain("deployed staging");
    expect((await runner.run({ name: "preview", args: { environment: "staging" } })).content).toContain("deployed staging");
    expect(asked).toEqual(["deploy"]);
    await runner.close();
  });
});

describe("spec 002: error handling as its flow chart draws it", () => {
  it("recoverable errors and timeouts are retried (count < 3 retries, exponential backoff); permission and invalid params are not", async () => {
    const tries: Record<string, number> = {};
    const flaky = (name: string, effect: "network" | "execute", fail: (n: number) => Promise<string>) =>
      defineTool({
        name,
        description: "Fails at first.",
        effect,
        idempotent: effect === "network",
        input: z.object({ q: z.string() }),
        timeoutMs: () => 300,
        execute: async () => fail((tries[name] = (tries[name] ?? 0) + 1)),
      });
    const registry = new ToolRegistry();
    registry.register(
      flaky("search_api", "network", async (n) => {
        if (n === 1) throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
        if (n === 2) return new Promise(() => {}); // the second try never answers: the time limit ends it
        return `results on try ${n}`;
      }),
    );
    registry.register(
      flaky("deploy", "execute", async () => {
        throw Object.assign(new Error("connection reset"), { code: "ECONNRESET" });
      }),
    );
    const runner = new ToolRunner({ registry, workspace: ws.dir, approval: "all", retry: { baseDelayMs: 5, maxDelayMs: 20 } });
    try {
      expect(await runner.run({ name: "search_api", args: { q: "x" } })).toMatchObject({ status: "success", content: "results on try 3" });
      // Running a command twice could do it twice: never retried.
      expect((await runner.run({ name: "deploy", args: { q: "x" } })).error?.code).toBe("NETWORK_ERROR");
      expect(tries.deploy).toBe(1);
      // Invalid params go back to the model at once.
      const invalid = await runner.run({ name: "search_api", args: {} });
      expect(invalid.error?.code).toBe("INVALID_ARGS");
      expect(tries.search_api).toBe(3);
      // The definition says which: MCP's idempotentHint.
      expect(registry.get("search_api")!.annotations.idempotentHint).toBe(true);
      expect(registry.get("deploy")!.annotations.idempotentHint).toBe(false);
    } finally {
      await runner.close();
    }
  });
});
