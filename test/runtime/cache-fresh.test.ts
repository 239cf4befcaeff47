import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../src/registry/registry.js";
import { ToolRunner } from "../../src/runtime/runner.js";
import { FILE_TOOLS } from "../../src/tools/fs/index.js";
import { searchTools } from "../../src/tools/search/index.js";
import { silentLogger } from "../../src/core/logger.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
let runner: ToolRunner;

beforeEach(async () => {
  ws = tempDir("tackle-cache-");
  mkdirSync(path.join(ws.dir, "src", "deep"), { recursive: true });
  writeFileSync(path.join(ws.dir, "src", "deep", "a.ts"), "const first = 1;\n");
  writeFileSync(path.join(ws.dir, "notes.txt"), "one\n");
  const registry = new ToolRegistry();
  registry.registerAll(FILE_TOOLS);
  registry.registerAll(await searchTools({ config: {}, env: {}, workspace: ws.dir, logger: silentLogger }));
  runner = new ToolRunner({ registry, workspace: ws.dir, approval: "all" });
});
afterEach(async () => {
  await runner.close();
  ws.cleanup();
});

describe("the read cache never answers with a stale result", () => {
  it("grep sees a nested file edited outside tackle", async () => {
    const before = await runner.run({ name: "grep", args: { pattern: "second" } });
    expect(before.content).not.toContain("a.ts");
    writeFileSync(path.join(ws.dir, "src", "deep", "a.ts"), "const first = 1;\nconst second = 2;\n");
    const after = await runner.run({ name: "grep", args: { pattern: "second" } });
    expect(after.metadata?.cached).not.toBe(true);
    expect(after.content).toContain("a.ts");
  });

  it("grep and glob see a file added, and miss a file removed, outside tackle", async () => {
    await runner.run({ name: "glob", args: { pattern: "**/*.ts" } });
    await runner.run({ name: "grep", args: { pattern: "first" } });
    writeFileSync(path.join(ws.dir, "src", "deep", "b.ts"), "const first = 3;\n");
    expect((await runner.run({ name: "glob", args: { pattern: "**/*.ts" } })).content).toContain("b.ts");
    expect((await runner.run({ name: "grep", args: { pattern: "first" } })).content).toContain("b.ts");
    rmSync(path.join(ws.dir, "src", "deep", "b.ts"));
    expect((await runner.run({ name: "glob", args: { pattern: "**/*.ts" } })).content).not.toContain("b.ts");
    expect((await runner.run({ name: "grep", args: { pattern: "first" } })).content).not.toContain("b.ts");
  });

  it("list_directory sees a changed size", async () => {
    await runner.run({ name: "list_directory", args: { path: "." } });
    writeFileSync(path.join(ws.dir, "notes.txt"), "one\ntwo\nthree\nfour\n");
    const after = await runner.run({ name: "list_directory", args: { path: "." } });
    expect(after.metadata?.cached).not.toBe(true);
  });

  it("a single file's read is still cached, and dropped when the file changes", async () => {
    await runner.run({ name: "read_file", args: { path: "notes.txt" } });
    expect((await runner.run({ name: "read_file", args: { path: "notes.txt" } })).metadata?.cached).toBe(true);
    writeFileSync(path.join(ws.dir, "notes.txt"), "changed\n");
    const after = await runner.run({ name: "read_file", args: { path: "notes.txt" } });
    expect(after.metadata?.cached).not.toBe(true);
    expect(after.content).toContain("changed");
  });
});
