import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFileTool } from "../../src/tools/fs/read-file.js";
// The library entry wires the default workspace of a direct call; this test uses it as a library user does.
import "../../src/index.js";
import { tempDir } from "../support/tools.js";
import "../../src/workspace/workspace.js";

let ws: ReturnType<typeof tempDir>;
beforeEach(() => (ws = tempDir()));
afterEach(() => ws.cleanup());

describe("ToolExecutionOptions.cwd (spec 001)", () => {
  it("a direct call works in cwd: relative paths start there, and it is the boundary", async () => {
    mkdirSync(path.join(ws.dir, "project"));
    writeFileSync(path.join(ws.dir, "project", "notes.txt"), "inside\n");
    writeFileSync(path.join(ws.dir, "secret.txt"), "outside\n");
    const read = await readFileTool.execute({ path: "notes.txt" }, { cwd: path.join(ws.dir, "project") });
    expect(read.content).toContain("inside");
    await expect(readFileTool.execute({ path: "../secret.txt" }, { cwd: path.join(ws.dir, "project") })).rejects.toThrow(/outside/i);
  });

  it("an explicit workspace wins over cwd", async () => {
    writeFileSync(path.join(ws.dir, "a.txt"), "root\n");
    const { Workspace } = await import("../../src/workspace/workspace.js");
    const read = await readFileTool.execute({ path: "a.txt" }, { cwd: "/", workspace: Workspace.open(ws.dir) });
    expect(read.content).toContain("root");
  });
});
