import { z } from "zod";
import { describe, expect, it } from "vitest";
import { defineTool } from "../../../src/core/define-tool.js";
import { warmBashParser, parseBash } from "../../../src/tools/shell/analysis/bash-parser.js";
import { servedRegistry } from "../../fixtures/mcp/served-tools.js";
import { rawStdioServer } from "./helpers.js";

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
    const { server, send, replies } = await rawStdioServer(registry);
    try {
      expect(count()).toBe(0);
      send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      await replies.reply(2);
      send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
      await replies.reply(3);
      await done;
      expect(count()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("prepares nothing once closed", async () => {
    const { registry, count } = preparedRegistry();
    const { server, send, replies } = await rawStdioServer(registry);
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
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
