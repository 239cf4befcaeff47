import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/define-tool.js";
import { ToolRegistry } from "../../src/registry/registry.js";
import { ToolRunner } from "../../src/runtime/runner.js";
import { FILE_TOOLS } from "../../src/tools/fs/index.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
beforeEach(() => {
  ws = tempDir("tackle-shape-");
  writeFileSync(path.join(ws.dir, "README.md"), Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n"));
});
afterEach(() => ws.cleanup());

function fileRunner(options: Partial<ConstructorParameters<typeof ToolRunner>[0]> = {}) {
  const registry = new ToolRegistry();
  registry.registerAll(FILE_TOOLS);
  return new ToolRunner({ registry, workspace: ws.dir, cache: false, ...options });
}

describe("an argument the tool does not take is an error, with the nearest name", () => {
  it("limt is not silently dropped (the whole file would come back)", async () => {
    const runner = fileRunner();
    const outcome = await runner.run({ name: "read_file", args: { path: "README.md", limt: 5 } });
    await runner.close();
    expect(outcome.status).toBe("error");
    expect(outcome.error?.code).toBe("INVALID_ARGS");
    expect(outcome.content).toMatch(/limt: unknown parameter; did you mean "limit"\?/);
  });

  it("names what the tool takes when nothing is close", async () => {
    const tool = defineTool({
      name: "t",
      description: "t",
      effect: "read",
      input: z.object({ alpha: z.string() }),
      execute: async () => "",
    });
    const checked = tool.validate({ alpha: "a", zzzzzzzz: 1 });
    expect(checked.valid).toBe(false);
    expect(checked.error).toMatch(/takes "alpha"/);
  });

  it("alternate spellings a tool accepts are still accepted", async () => {
    const runner = fileRunner({ approval: "all" });
    await runner.run({ name: "read_file", args: { path: "README.md" } });
    const outcome = await runner.run({ name: "edit_file", args: { path: "README.md", old_string: "line 1\n", new_string: "first\n" } });
    await runner.close();
    expect(outcome.status, outcome.content).toBe("success");
  });

  it("loose schemas keep taking anything", () => {
    const tool = defineTool({
      name: "t",
      description: "t",
      effect: "read",
      input: z.looseObject({ a: z.string() }),
      execute: async () => "",
    });
    expect(tool.validate({ a: "x", extra: 1 }).valid).toBe(true);
  });
});

describe("executionTimeMs is the tool's time, not the person's", () => {
  it("reports the wait for approval apart", async () => {
    const runner = fileRunner({
      approval: "ask",
      approver: async () => {
        await new Promise((r) => setTimeout(r, 1_000));
        return { approved: true };
      },
    });
    const outcome = await runner.run({ name: "read_file", args: { path: "README.md", limit: 1 } });
    await runner.close();
    expect(outcome.status).toBe("success");
    expect(outcome.approvalWaitMs).toBeGreaterThanOrEqual(900);
    expect(outcome.executionTimeMs).toBeLessThan(outcome.approvalWaitMs!);
  });
});

describe("approval mode ask", () => {
  it("asks for everything, like none", async () => {
    let asked = 0;
    const runner = fileRunner({
      approval: "ask",
      approver: async () => {
        asked++;
        return { approved: false, message: "no" };
      },
    });
    const outcome = await runner.run({ name: "read_file", args: { path: "README.md" } });
    await runner.close();
    expect(outcome.status).toBe("rejected");
    expect(asked).toBe(1);
  });
});
