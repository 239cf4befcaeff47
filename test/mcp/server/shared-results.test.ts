import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolOutcome } from "../../../src/core/result.js";
import { silentLogger } from "../../../src/core/logger.js";
import { runMcpServer, type McpServerHandle } from "../../../src/mcp/server/server.js";
import { messageJson, sharedResult } from "../../../src/mcp/server/shared-results.js";
import { StdioWire } from "../../../src/mcp/server/stdio-wire.js";
import { tempDir } from "../../support/tools.js";
import { rawReplies, type RawMessage } from "./helpers.js";

/*
 * A read answered from the result cache carries the outcome the cache kept; its tools/call result
 * is made once and its JSON written once (src/mcp/server/shared-results.ts, stdio-wire.ts).
 */

/** An outcome as the runner returns it when its result cache answered the call. */
function outcome(content: string, structured: unknown, status: ToolOutcome["status"] = "success"): ToolOutcome {
  return {
    status,
    toolCallId: "mcp_1",
    toolName: "read_file",
    content,
    structured,
    executionTimeMs: 1,
    metadata: { cached: true },
  } as ToolOutcome;
}

function made(o: ToolOutcome): CallToolResult {
  return {
    content: [{ type: "text", text: o.content }],
    ...(o.structured ? { structuredContent: o.structured as Record<string, unknown> } : {}),
  };
}

describe("sharedResult", () => {
  const maker = {};

  it("hands back the result made for the same outcome, frozen, as the cache's copy of it carries", () => {
    const first = outcome("1\talpha", { content: "alpha" });
    const a = sharedResult(first, maker, () => made(first));
    // What the runner returns on a cache hit: a new outcome around the kept text and structured output.
    const again = { ...first, toolCallId: "mcp_2", metadata: { cached: true } };
    const b = sharedResult(again, maker, () => made(again));
    expect(b).toBe(a);
    expect(Object.isFrozen(a) && Object.isFrozen(a.content) && Object.isFrozen(a.content[0])).toBe(true);
    expect(() => {
      (a.content as unknown[]).push({ type: "text", text: "more" });
    }).toThrow(TypeError);
  });

  it("makes a new result when the text, the maker, the tool or the blocks differ", () => {
    const structured = { content: "alpha" };
    const first = outcome("1\talpha", structured);
    const a = sharedResult(first, maker, () => made(first));
    const otherText = outcome("1\tbeta", structured);
    expect(sharedResult(otherText, maker, () => made(otherText)).content[0]).toEqual({ type: "text", text: "1\tbeta" });
    expect(sharedResult(first, {}, () => made(first))).not.toBe(a);
    expect(sharedResult({ ...first, toolName: "other" }, maker, () => made(first))).not.toBe(sharedResult(first, maker, () => made(first)));
    const withBlocks = { ...first, blocks: [] };
    expect(sharedResult(withBlocks, maker, () => made(withBlocks))).not.toBe(sharedResult(first, maker, () => made(first)));
  });

  it("never shares a call the cache did not answer, a failure, or a result without structured output", () => {
    const fresh = { ...outcome("1\talpha", { content: "alpha" }), metadata: {} };
    for (const o of [fresh, outcome("no such file", { content: "x" }, "error"), outcome("plain text", undefined)]) {
      const a = sharedResult(o, maker, () => made(o));
      const b = sharedResult(o, maker, () => made(o));
      expect(b).not.toBe(a);
      expect(Object.isFrozen(a)).toBe(false);
      expect(messageJson({ jsonrpc: "2.0", id: 1, result: a })).toEqual([JSON.stringify({ jsonrpc: "2.0", id: 1, result: a })]);
    }
  });
});

describe("messageJson", () => {
  it("writes what JSON.stringify writes, whatever the id and the keys' order", () => {
    const o = outcome('1\t"quoted"\u2028 \u00e9 \ud83d\ude00', { content: '"quoted"', nested: { list: [1, null, true] } });
    const result = sharedResult(o, {}, () => made(o));
    const messages = [
      { jsonrpc: "2.0", id: 7, result },
      { result, jsonrpc: "2.0", id: 'req-"8"' },
      { jsonrpc: "2.0", result, id: 0, extra: undefined },
    ] as JSONRPCMessage[];
    for (const message of messages) {
      const pieces = messageJson(message);
      expect(pieces.join("")).toBe(JSON.stringify(message));
      // The result's JSON is a piece of its own, written as it is.
      expect(pieces).toContain(JSON.stringify(result));
    }
  });

  it("serialises a shared result once, however often it is sent", () => {
    let reads = 0;
    const structured = {
      get content() {
        reads++;
        return "alpha";
      },
    };
    const o = outcome("1\talpha", structured);
    const result = sharedResult(o, {}, () => made(o));
    const first = messageJson({ jsonrpc: "2.0", id: 1, result }).join("");
    const second = messageJson({ jsonrpc: "2.0", id: 2, result }).join("");
    expect(reads).toBe(1);
    expect(second).toBe(first.replace('"id":1', '"id":2'));
  });

  it("writes any other message whole, as JSON.stringify does", () => {
    const plain: CallToolResult = { content: [{ type: "text", text: "x" }] };
    const messages: JSONRPCMessage[] = [
      { jsonrpc: "2.0", id: 1, result: plain },
      { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "no" } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
    ];
    for (const message of messages) expect(messageJson(message)).toEqual([JSON.stringify(message)]);
  });
});

describe("StdioWire", () => {
  it("settles a shared answer's send once a full stream has drained, as the SDK's send does", async () => {
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 16 });
    const wire = new StdioWire(input, output);
    await wire.start();
    const o = outcome("x".repeat(1000), { content: "x".repeat(1000) });
    const result = sharedResult(o, {}, () => made(o));
    let settled = false;
    void wire.send({ jsonrpc: "2.0", id: 1, result }).then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    let line = "";
    while (!settled) {
      line += String(output.read() ?? "");
      await new Promise((resolve) => setImmediate(resolve));
    }
    line += String(output.read() ?? "");
    expect(line).toBe(`${JSON.stringify({ jsonrpc: "2.0", id: 1, result })}\n`);
    await wire.close();
    await expect(wire.send({ jsonrpc: "2.0", id: 2, result })).rejects.toThrow(/closed/);
  });
  it("writes every message as its JSON and a newline, in the order sent", async () => {
    const output = new PassThrough();
    const wire = new StdioWire(new PassThrough(), output);
    await wire.start();
    const o = outcome("1\tbeta", { content: "beta" });
    const shared = sharedResult(o, {}, () => made(o));
    const messages: JSONRPCMessage[] = [
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
      { jsonrpc: "2.0", id: 3, result: shared },
      { jsonrpc: "2.0", id: 4, result: { content: [{ type: "text", text: "plain\nline" }] } },
      { jsonrpc: "2.0", id: 5, result: shared },
    ];
    await Promise.all(messages.map((m) => wire.send(m)));
    expect(String(output.read())).toBe(messages.map((m) => `${JSON.stringify(m)}\n`).join(""));
    await wire.close();
  });
  it("refuses a message that cannot be made JSON, writing nothing, and goes on writing the next", async () => {
    const output = new PassThrough();
    const wire = new StdioWire(new PassThrough(), output);
    await wire.start();
    const broken = { jsonrpc: "2.0", id: 1, result: { content: [], big: 1n } } as unknown as JSONRPCMessage;
    await expect(wire.send(broken)).rejects.toThrow(TypeError);
    const next: JSONRPCMessage = { jsonrpc: "2.0", id: 2, result: { content: [] } };
    await wire.send(next);
    expect(String(output.read())).toBe(`${JSON.stringify(next)}\n`);
    await wire.close();
  });
});

describe("a file read again over stdio", () => {
  let temp: { dir: string; cleanup(): void };
  let ws: string;
  let server: McpServerHandle;
  const input = new PassThrough();
  const output = new PassThrough();
  const replies = rawReplies(output);
  let nextId = 10;

  function send(method: string, params: unknown): number {
    const id = nextId++;
    input.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return id;
  }

  beforeAll(async () => {
    temp = tempDir("tackle-shared-results-");
    ws = path.join(temp.dir, "ws");
    mkdirSync(ws);
    writeFileSync(path.join(ws, "a.txt"), "alpha\nbeta\n");
    server = await runMcpServer({
      workspace: ws,
      stdio: { input, output },
      logger: silentLogger,
      store: `file:${path.join(temp.dir, "store")}`,
    });
    await replies.reply(send("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }));
    input.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  });

  afterAll(async () => {
    await server?.close();
    temp?.cleanup();
  });

  it("gets the same answer, and a changed file its new text", async () => {
    const read = { name: "read_file", arguments: { path: "a.txt" } };
    const ids = [send("tools/call", read), send("tools/call", read), send("tools/call", read)];
    const [lineA, ...again] = await Promise.all(ids.map((id) => replies.line(id)));
    const a = ids[0]!;
    again.forEach((line, i) => expect(line).toBe(lineA!.replace(`"id":${a}`, `"id":${ids[i + 1]}`)));
    const answer = JSON.parse(lineA!) as RawMessage;
    expect(answer.result?.["structuredContent"]).toMatchObject({ content: "alpha\nbeta" });

    writeFileSync(path.join(ws, "a.txt"), "gamma\n");
    const changed = await replies.reply(send("tools/call", read));
    expect(changed.result?.["structuredContent"]).toMatchObject({ content: "gamma" });
    expect(JSON.stringify(changed.result?.["content"])).toContain("gamma");
    const part = await replies.reply(send("tools/call", { name: "read_file", arguments: { path: "a.txt", limit: 1 } }));
    expect(part.result?.["structuredContent"]).toMatchObject({ endLine: 1 });
  });
});
