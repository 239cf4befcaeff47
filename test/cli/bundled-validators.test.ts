import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { spawnEnv, tempDir } from "../support/tools.js";
import { CLI } from "./run-cli.js";

// The bundle loads the MCP SDK's JSON Schema validator (ajv) on first use, not at start
// (scripts/bundle-cli.mjs): an approval answered through elicitation is still checked against
// the form's schema, by the built command.
describe("the bundled command's JSON Schema checks", () => {
  it("refuses an elicitation answer that breaks the form's schema and takes one that keeps it", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws.dir, "out.txt"), "first");
    let answer: Record<string, unknown> = { approve: "yes, sure" };
    const client = new Client({ name: "bundle-test", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: answer }));
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLI, "mcp", "--workspace", ws.dir],
          cwd: ws.dir,
          env: spawnEnv(),
          stderr: "ignore",
        }),
      );
      const wrong = await client.callTool({ name: "write_file", arguments: { path: "out.txt", content: "second" } });
      expect(wrong.isError).toBe(true);
      // The SDK's validator's own words: ajv ran, not just tackle's check of `approve === true`.
      expect(JSON.stringify(wrong.content)).toContain("approve must be boolean");
      expect(readFileSync(path.join(ws.dir, "out.txt"), "utf8")).toBe("first");

      answer = { approve: true };
      const right = await client.callTool({ name: "write_file", arguments: { path: "out.txt", content: "second" } });
      expect(right.isError ?? false).toBe(false);
      expect(readFileSync(path.join(ws.dir, "out.txt"), "utf8")).toBe("second");
    } finally {
      await client.close();
      ws.cleanup();
    }
  }, 120_000);
});
