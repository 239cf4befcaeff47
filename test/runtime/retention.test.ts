import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import v8 from "node:v8";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/define-tool.js";
import { ToolRegistry } from "../../src/registry/registry.js";
import { ToolRunner } from "../../src/runtime/runner.js";
import { tempDir } from "../support/tools.js";

function oldSpaceUsed(): number {
  return v8.getHeapSpaceStatistics().find((s) => s.space_name === "old_space")!.space_used_size;
}

describe("what a finished call leaves behind", () => {
  it("is not its result: results die young instead of filling the old generation", async () => {
    const ws = tempDir();
    const file = path.join(ws.dir, "page.txt");
    writeFileSync(file, "a line of text\n".repeat(800));
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: "page",
        description: "Returns the 12 KB file, read afresh.",
        effect: "read",
        input: z.object({ n: z.number() }),
        execute: async () => readFileSync(file, "utf8"),
      }),
    );
    const runner = new ToolRunner({ registry, workspace: ws.dir, cache: false });
    try {
      const calls = 3000;
      let grown = 0;
      let last = oldSpaceUsed();
      // Back to back, as an agent's calls come: each result is dropped as soon as it is read.
      for (let n = 0; n < calls; n++) {
        const out = await runner.run({ name: "page", args: { n } });
        expect(out.status).toBe("success");
        const now = oldSpaceUsed();
        if (now > last) grown += now - last;
        last = now;
      }
      // 36 MB of results went through. Kept past young collections (as an attempt holding its
      // race did: 9 KB per call), most of them reach the old generation; dropped, about 2 KB per call does.
      expect(grown / calls).toBeLessThan(5 * 1024);
    } finally {
      await runner.close();
      ws.cleanup();
    }
  });
});
