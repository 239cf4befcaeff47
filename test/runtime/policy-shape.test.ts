import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/define-tool.js";
import { ToolRegistry } from "../../src/registry/registry.js";
import { CallMemo } from "../../src/core/call-memo.js";
import { CallContext } from "../../src/core/context.js";
import type { AnyTool, ToolContext } from "../../src/core/tool.js";
import { decide, type Decision } from "../../src/runtime/policy.js";
import { parseRules } from "../../src/runtime/rules.js";
import { ToolRunner } from "../../src/runtime/runner.js";
import { readFileTool } from "../../src/tools/fs/read-file.js";
import { FILE_TOOLS } from "../../src/tools/fs/index.js";
import { createGlobTool } from "../../src/tools/search/glob.js";
import { LspManager } from "../../src/tools/lsp/lsp-manager.js";
import { definitionTool } from "../../src/tools/lsp/definition.js";
import { diagnosticsTool } from "../../src/tools/lsp/diagnostics.js";
import { hoverTool } from "../../src/tools/lsp/hover.js";
import { referencesTool } from "../../src/tools/lsp/references.js";
import { symbolsTool } from "../../src/tools/lsp/symbols.js";
import { Workspace } from "../../src/workspace/workspace.js";

// The policy answers without a promise when the tool's hooks do (a read's scope resolves its path
// synchronously), and with one when any hook is asynchronous. Both must reach the same decision.

let dir: string;
let ws: Workspace;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-policy-")));
  writeFileSync(path.join(dir, "notes.txt"), "hello\n");
  writeFileSync(path.join(dir, ".env"), "KEY=1\n");
  ws = Workspace.open(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function ctxFor(): ToolContext {
  const log = { debug() {}, info() {}, warn() {}, error() {} };
  return new CallContext(
    "t",
    new AbortController().signal,
    ws,
    log,
    new CallMemo(),
    100_000,
    () => undefined,
    () => {},
    () => {},
  );
}

function input(tool: AnyTool, args: unknown, rules = {}, mode: "safe" | "all" = "safe") {
  return { tool, names: [tool.name], args, ctx: ctxFor(), mode, rules: parseRules(rules), sessionAllows: [] };
}

/** The same tool with every hook made asynchronous. */
function asyncTwin(tool: AnyTool): AnyTool {
  const scope = tool.scope!;
  return Object.create(tool, {
    scope: { value: { kind: scope.kind, subjects: async (args: unknown, ctx: ToolContext) => scope.subjects(args as never, ctx) } },
    assess: { value: async () => undefined },
  }) as AnyTool;
}

describe("policy: hooks that answer at once and hooks that answer with a promise decide alike", () => {
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, Decision["action"]]> = [
    ["a plain read", { path: "notes.txt" }, {}, "allow"],
    ["a secret", { path: ".env" }, {}, "deny"],
    ["a deny rule", { path: "notes.txt" }, { deny: ["read_file(notes.txt)"] }, "deny"],
    ["an ask rule", { path: "notes.txt" }, { ask: ["read_file"] }, "ask"],
  ];
  for (const [what, args, rules, action] of cases) {
    it(`${what}: ${action}, with and without promises`, async () => {
      const now = await decide(input(readFileTool, args, rules));
      expect(now.action).toBe(action);
      expect(await decide(input(asyncTwin(readFileTool), args, rules))).toEqual(now);
    });
  }

  // Every file tool and the search tools resolve their paths synchronously in their hooks.
  const sample: Record<string, Record<string, unknown>> = {
    read_file: { path: "notes.txt" },
    write_file: { path: "new.txt", content: "x" },
    append_file: { path: "notes.txt", content: "x" },
    edit_file: { path: "notes.txt", old_string: "hello", new_string: "bye" },
    multi_edit: { path: "notes.txt", edits: [{ old: "hello", new: "bye" }] },
    apply_patch: { patch: "*** Begin Patch\n*** Update File: notes.txt\n-hello\n+bye\n*** End Patch" },
    list_directory: { path: "." },
    create_directory: { path: "sub" },
    delete_file: { path: "notes.txt" },
    move_file: { from: "notes.txt", to: "moved.txt" },
    copy_file: { source: "notes.txt", dest: "copied.txt" },
    glob: { pattern: "**/*.txt" },
  };
  const tools = [...FILE_TOOLS, createGlobTool()] as AnyTool[];
  for (const tool of tools) {
    const args = sample[tool.name];
    if (!args) continue;
    it(`${tool.name} decides`, async () => {
      expect((await decide(input(tool, args, {}, "all"))).action).toBe("allow");
    });
  }
  // The language-server tools' scope names the file, resolved at once (no server starts to decide).
  const manager = new LspManager({});
  for (const make of [diagnosticsTool, symbolsTool, hoverTool, definitionTool, referencesTool]) {
    const tool = make(manager) as AnyTool;
    it(`${tool.name} decides`, async () => {
      expect((await decide(input(tool, { path: "notes.txt", line: 1, col: 1 }, {}, "all"))).action).toBe("allow");
    });
  }
  it("the sample covers every file tool", () => {
    expect(FILE_TOOLS.map((t) => t.name).filter((n) => !sample[n])).toEqual([]);
  });

  it("a tool's asynchronous needsApproval is waited for", async () => {
    const tool = defineTool({
      name: "probe",
      description: "Probes.",
      effect: "read",
      input: z.object({}),
      needsApproval: async () => true,
      execute: async () => "ok",
    });
    const decision = decide(input(tool, {}));
    expect(decision).toBeInstanceOf(Promise);
    expect((await decision).action).toBe("ask");
  });
});

describe("runner: a hook that throws at once is an error outcome, not an exception", () => {
  for (const shape of ["sync", "async"] as const) {
    it(`${shape} scope that throws`, async () => {
      const tool = defineTool({
        name: "boom",
        description: "Throws in its scope.",
        effect: "read",
        input: z.object({}),
        scope: {
          kind: "path",
          subjects:
            shape === "sync"
              ? () => {
                  throw new Error("scope failed");
                }
              : async () => {
                  throw new Error("scope failed");
                },
        },
        execute: async () => "never",
      });
      const registry = new ToolRegistry();
      registry.register(tool);
      const runner = new ToolRunner({ registry, workspace: dir, cache: false });
      const outcome = await runner.run({ name: "boom", args: {} });
      expect(outcome.status).toBe("error");
      expect(outcome.content).toContain("scope failed");
      await runner.close();
    });
  }

  it("a path outside the workspace is refused by read_file's synchronous scope", async () => {
    const registry = new ToolRegistry();
    registry.register(readFileTool);
    const runner = new ToolRunner({ registry, workspace: dir, cache: false });
    const outcome = await runner.run({ name: "read_file", args: { path: "../outside.txt" } });
    expect(outcome.status).toBe("error");
    expect(outcome.error?.code).toBe("INVALID_PATH");
    await runner.close();
  });
});
