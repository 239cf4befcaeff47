import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { perCall } from "../../src/core/call-memo.js";
import { defineTool } from "../../src/core/define-tool.js";
import { ToolRegistry } from "../../src/registry/registry.js";
import { ToolRunner } from "../../src/runtime/runner.js";
import { writeFileTool } from "../../src/tools/fs/write-file.js";
import { createGlobTool } from "../../src/tools/search/glob.js";
import { createGrepTool } from "../../src/tools/search/grep.js";
import { useTempWorkspace } from "../support/tools.js";

const ws = useTempWorkspace();

/** A runner over `tools` whose workspace counts how often each path is resolved. */
function countingRunner(
  tools: Parameters<ToolRegistry["register"]>[0][],
  options: ConstructorParameters<typeof ToolRunner>[0] extends infer O ? Partial<O> : never = {},
) {
  const registry = new ToolRegistry();
  for (const t of tools) registry.register(t);
  const runner = ws.runner({ registry, cache: false, ...options });
  const resolves: string[] = [];
  const ws0 = runner.workspace;
  // resolve() goes through resolveSync(), so counting there counts every resolution.
  const original = ws0.resolveSync.bind(ws0);
  ws0.resolveSync = (input, opts) => {
    resolves.push(input);
    return original(input, opts);
  };
  return { runner, resolves };
}

describe("one per-call memo shared by a tool's hooks", () => {
  it("scope, access, assess, preview and execute see one computation", async () => {
    let computed = 0;
    const target = perCall((args: { name: string }) => ({ n: ++computed, name: args.name }));
    const seen: number[] = [];
    const tool = defineTool({
      name: "memo_probe",
      description: "probe",
      input: z.object({ name: z.string() }),
      effect: "write",
      scope: { kind: "path", subjects: (a, ctx) => [target(a, ctx).name] },
      access: (a, ctx) => ({ writes: [target(a, ctx).name] }),
      assess: (a, ctx) => (seen.push(target(a, ctx).n), undefined),
      execute: async (a, ctx) => (seen.push(target(a, ctx).n), `ok ${target(a, ctx).n}`),
    });
    const { runner } = countingRunner([tool], { approval: "all" });
    const [outcome] = await runner.runAll([{ name: "memo_probe", args: { name: "x.txt" } }]);
    expect(outcome!.content).toBe("ok 1");
    expect(computed).toBe(1);
    expect(seen).toEqual([1, 1]);
    // A second call works its own answer out.
    await runner.run({ name: "memo_probe", args: { name: "y.txt" } });
    expect(computed).toBe(2);
  });

  it("write_file resolves its path once per call when nobody is asked", async () => {
    const { runner, resolves } = countingRunner([writeFileTool], { approval: "all" });
    const outcome = await runner.run({ name: "write_file", args: { path: "a/b.txt", content: "hi" } });
    expect(outcome.status).toBe("success");
    expect(resolves.filter((p) => p === "a/b.txt")).toHaveLength(1);
  });

  it("glob and grep resolve their search folder once per call, cache on or off", async () => {
    writeFileSync(path.join(ws.dir, "a.txt"), "needle\n");
    for (const cache of [false, true]) {
      const { runner, resolves } = countingRunner([createGlobTool(), createGrepTool({ backend: "builtin" })], {
        approval: "all",
        ...(cache ? { cache: {} } : {}),
      });
      expect((await runner.run({ name: "glob", args: { pattern: "*.txt", path: "." } })).content).toBe("a.txt");
      expect((await runner.run({ name: "grep", args: { pattern: "needle", path: "." } })).content).toBe("a.txt:1: needle");
      expect(resolves.filter((p) => p === ".")).toHaveLength(2);
      await runner.close();
    }
  });

  it("after a person answers, execute works the path out afresh (the file may have moved meanwhile)", async () => {
    writeFileSync(path.join(ws.dir, "old.txt"), "before");
    const { runner, resolves } = countingRunner([writeFileTool], { approval: "safe", approver: async () => ({ approved: true }) });
    const outcome = await runner.run({ name: "write_file", args: { path: "old.txt", content: "after" } });
    expect(outcome.status).toBe("success");
    expect(resolves.filter((p) => p === "old.txt")).toHaveLength(2);
  });

  it("arguments a person edited are worked out afresh, not from the memo of the originals", async () => {
    const names = perCall((args: { name: string }) => args.name);
    const tool = defineTool({
      name: "memo_edit",
      description: "probe",
      input: z.object({ name: z.string() }),
      effect: "write",
      scope: { kind: "path", subjects: (a, ctx) => [names(a, ctx)] },
      execute: async (a, ctx) => `wrote ${names(a, ctx)}`,
    });
    const { runner } = countingRunner([tool], {
      approval: "safe",
      approver: async () => ({ approved: true, modifiedArgs: { name: "edited.txt" } }),
    });
    const outcome = await runner.run({ name: "memo_edit", args: { name: "original.txt" } });
    expect(outcome.content).toBe("wrote edited.txt");
  });
});
