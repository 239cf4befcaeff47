import { PassThrough } from "node:stream";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { defineTool } from "../../../src/core/define-tool.js";
import { silentLogger } from "../../../src/core/logger.js";
import { runMcpServer } from "../../../src/mcp/server/server.js";
import { warmBashParser, parseBash } from "../../../src/tools/shell/analysis/bash-parser.js";
import { servedRegistry } from "../../fixtures/mcp/served-tools.js";
import { rawReplies } from "./helpers.js";

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/** A registry whose tool says when it is prepared. */
function preparedRegistry() {
  const registry = servedRegistry();
  let prepared!: () => void;
  const done = new Promise<void>((resolve) => (prepared = resolve));
  let count = 0;
  registry.register(
    defineTool({
      name: "slow_start",
      description: "Has work to do before its first call.",
      effect: "read",
      input: z.object({}),
      prepare: async () => {
        count++;
        prepared();
      },
      execute: async () => "ok",
    }),
  );
  return { registry, done, count: () => count };
}

describe("tackle mcp prepares tools' first calls once a client has listed them", () => {
  it("calls each tool's prepare once, after the first tools/list and not before", async () => {
    const { registry, done, count } = preparedRegistry();
    const input = new PassThrough();
    const output = new PassThrough();
    const server = await runMcpServer({ registry, stdio: { input, output }, logger: silentLogger });
    const replies = rawReplies(output);
    try {
      input.write(`${JSON.stringify(INIT)}\n`);
      await replies.reply(1);
      expect(count()).toBe(0);
      input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
      await replies.reply(2);
      input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" })}\n`);
      await replies.reply(3);
      await done;
      expect(count()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("prepares nothing once closed", async () => {
    const { registry, count } = preparedRegistry();
    const input = new PassThrough();
    const output = new PassThrough();
    const server = await runMcpServer({ registry, stdio: { input, output }, logger: silentLogger });
    const replies = rawReplies(output);
    input.write(`${JSON.stringify(INIT)}\n`);
    await replies.reply(1);
    input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
    await replies.reply(2);
    await server.close();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(count()).toBe(0);
  });
});

describe("the shell's preparation", () => {
  it("loads the grammar and parses with it", async () => {
    await warmBashParser();
    const tree = await parseBash("echo 'a' | cat");
    expect(tree?.rootNode.hasError).toBe(false);
    tree?.delete();
  });
});
