import { z } from "zod";
import { defineTool } from "../../../src/core/define-tool.js";
import { describe, expect, it } from "vitest";
import { servedRegistry } from "../../fixtures/mcp/served-tools.js";
import { idFromHead, LineLimit, MAX_STDIO_MESSAGE_BYTES } from "../../../src/mcp/server/line-limit.js";
import { rawStdioServer } from "./helpers.js";

describe("tackle mcp on stdio refuses an oversized message and keeps serving", () => {
  for (const mb of [9, 12, 50]) {
    it(`a ${mb} MB request gets an error naming the limit; the next request is answered`, async () => {
      const { server, input, replies } = await rawStdioServer(servedRegistry());
      try {
        const big = JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "echo", arguments: { text: "a".repeat(mb * 1024 * 1024) } },
        });
        // Written in pieces, as a pipe delivers it.
        for (let i = 0; i < big.length; i += 1 << 20) input.write(big.slice(i, i + (1 << 20)));
        input.write("\n");
        input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" })}\n`);
        const refused = await replies.reply(2);
        expect(refused.error).toMatchObject({ code: -32600 });
        expect(String((refused.error as { message: string }).message)).toContain(`up to ${MAX_STDIO_MESSAGE_BYTES / 1024 / 1024} MB`);
        expect((await replies.reply(3)).result).toBeDefined();
      } finally {
        await server.close();
      }
    });
  }
});

describe("LineLimit", () => {
  it("passes lines at or under the limit through byte for byte, however they are split", async () => {
    const seen: number[] = [];
    const limit = new LineLimit(10, (size) => seen.push(size));
    const out: Buffer[] = [];
    limit.on("data", (d: Buffer) => out.push(d));
    const text = "0123456789\nabc\n" + "x".repeat(25) + "\nok\n";
    for (const piece of text.match(/[\s\S]{1,3}/g)!) limit.write(Buffer.from(piece));
    limit.end();
    await new Promise((resolve) => limit.on("end", resolve));
    const lines = Buffer.concat(out).toString().split("\n");
    expect([lines[0], lines[1], lines[3], lines[4]]).toEqual(["0123456789", "abc", "ok", ""]);
    // The long line is ended early: what reached the reader is a cut-off start of it.
    expect(lines[2]!.length).toBeLessThanOrEqual(10);
    expect(seen).toEqual([25]);
  });

  it("finds the request id at the start of a message", () => {
    expect(idFromHead(Buffer.from('{"jsonrpc":"2.0","id":42,"method":"x"'))).toBe(42);
    expect(idFromHead(Buffer.from('{"id":"a\\"b","jsonrpc"'))).toBe('a"b');
    expect(idFromHead(Buffer.from('{"jsonrpc":"2.0","method":"x","params":{"text":"aaaa'))).toBeNull();
  });
});

describe("tackle mcp works out the tools' JSON Schemas before the first tools/list", () => {
  it("a tool whose schema cannot be converted fails tools/list, not the server", async () => {
    const registry = servedRegistry();
    const broken = defineTool({
      name: "broken",
      description: "Never listed.",
      effect: "read",
      input: z.object({}),
      execute: async () => ({ content: "" }),
    });
    Object.defineProperty(broken, "inputSchema", {
      get() {
        throw new Error("this schema cannot be converted");
      },
    });
    registry.register(broken);
    const { server, input, replies } = await rawStdioServer(registry);
    try {
      // Enough turns of the event loop for the schemas to have been worked out.
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
      expect(JSON.stringify(await replies.reply(2))).toContain("this schema cannot be converted");
      input.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } })}\n`,
      );
      expect(await replies.reply(3)).toMatchObject({ result: { structuredContent: { echo: "hi", length: 2 } } });
    } finally {
      await server.close();
    }
  });
});
