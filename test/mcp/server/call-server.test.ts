import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import type { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { specTypeSchemas } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../src/core/define-tool.js";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { silentLogger } from "../../../src/core/logger.js";
import { runMcpServer, type McpServerHandle } from "../../../src/mcp/server/server.js";
import { spawnEnv, tempDir } from "../../support/tools.js";
import { fixtureCommand, handDrivenModernClient, rawReplies, rawStdioServer, ROOT, type RawMessage } from "./helpers.js";

/*
 * A plain 2025-era tools/call goes straight to tackle's handler, without the SDK's checks of the
 * request and of the result (src/mcp/server/call-server.ts). Its answers must be what the SDK's
 * way gives, and valid by the SDK's schema as they are; a request the SDK would refuse is still
 * refused by the SDK.
 */

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082",
  "hex",
);

describe("tools/call without the SDK's second checks", () => {
  let temp: { dir: string; cleanup(): void };
  let server: McpServerHandle;
  const input = new PassThrough();
  const output = new PassThrough();
  const replies = rawReplies(output);
  let nextId = 10;

  async function request(method: string, params: unknown): Promise<RawMessage> {
    const id = nextId++;
    input.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return replies.reply(id);
  }

  beforeAll(async () => {
    temp = tempDir("tackle-call-server-");
    const ws = path.join(temp.dir, "ws");
    mkdirSync(ws);
    writeFileSync(path.join(ws, "a.txt"), "alpha\nbeta\n");
    writeFileSync(path.join(ws, "dot.png"), PNG);
    const store = `file:${path.join(temp.dir, "store")}`;
    server = await runMcpServer({ workspace: ws, stdio: { input, output }, logger: silentLogger, store });
    const init = await request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    });
    expect(init.result).toBeDefined();
    input.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  });

  afterAll(async () => {
    await server?.close();
    temp?.cleanup();
  });

  const calls: Array<[string, string, Record<string, unknown>]> = [
    ["a text file, with structured content", "read_file", { path: "a.txt" }],
    ["an image", "read_file", { path: "dot.png" }],
    ["a missing file", "read_file", { path: "missing.txt" }],
    ["a path outside the workspace", "read_file", { path: "../../etc/passwd" }],
    ["a write the client cannot be asked about", "write_file", { path: ".env", content: "A=1" }],
    ["arguments the tool's schema refuses", "read_file", { path: 5 }],
    ["a tool that does not exist", "no_such_tool", {}],
  ];

  for (const [what, name, args] of calls) {
    it(`answers ${what} as the SDK's way does, with a result valid as it is`, async () => {
      const direct = await request("tools/call", { name, arguments: args });
      // A _meta key other than progressToken sends the call the SDK's way.
      const checked = await request("tools/call", { name, arguments: args, _meta: { "example.com/trace": "1" } });
      expect(direct.error).toBeUndefined();
      expect(checked.error).toBeUndefined();
      const strip = (r: Record<string, unknown> | undefined) =>
        JSON.parse(JSON.stringify(r).replace(/mcp_[0-9a-f-]{36}/g, "ID")) as unknown;
      expect(strip(direct.result)).toEqual(strip(checked.result));
      const checkedBySdk = specTypeSchemas.CallToolResult["~standard"].validate(direct.result);
      expect(checkedBySdk).toEqual({ value: direct.result });
    });
  }

  it("answers a call carrying a progress token the plain way", async () => {
    const answer = await request("tools/call", { name: "read_file", arguments: { path: "a.txt" }, _meta: { progressToken: 7 } });
    expect(answer.result?.["isError"]).toBeUndefined();
  });

  const refused: Array<[string, unknown]> = [
    ["a name that is not a string", { name: 5, arguments: {} }],
    ["arguments that are a list", { name: "read_file", arguments: ["a.txt"] }],
    ["no params", undefined],
  ];
  for (const [what, params] of refused) {
    it(`leaves ${what} to the SDK, which refuses it`, async () => {
      const answer = await request("tools/call", params);
      expect(answer.result).toBeUndefined();
      expect(answer.error?.code).toBe(-32602);
    });
  }
});

describe("a library tool's result that breaks the protocol", () => {
  it("is refused as the SDK's way refuses it, whichever way the call came", async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: "bad_image",
        description: "Returns an image block whose data is not text.",
        effect: "read",
        input: z.object({}),
        execute: async () => ({ content: "an image", blocks: [{ type: "image", data: 5, mimeType: "image/png" } as never] }),
      }),
    );
    const { server, send, replies } = await rawStdioServer(registry);
    try {
      send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "bad_image", arguments: {} } });
      send({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "bad_image", arguments: {}, _meta: { "example.com/trace": "1" } },
      });
      const [direct, checked] = [await replies.reply(2), await replies.reply(3)];
      for (const answer of [direct, checked]) {
        expect(answer.result).toBeUndefined();
        expect(answer.error?.code).toBe(-32602);
        expect(answer.error?.message).toMatch(/^Invalid tools\/call result/);
      }
    } finally {
      await server.close();
    }
  });
});

describe("tools/call on the 2026-07-28 era, straight and the SDK's way", () => {
  let ws: { dir: string; cleanup(): void };
  let client: Client;

  beforeAll(async () => {
    ws = tempDir("tackle-call-server-2026-");
    client = handDrivenModernClient("modern");
    await client.connect(
      new StdioClientTransport({ env: spawnEnv(), ...fixtureCommand(["--workspace", ws.dir]), cwd: ROOT, stderr: "pipe" }),
    );
  });

  afterAll(async () => {
    await client?.close();
    ws?.cleanup();
  });

  const call = (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) } as never, { allowInputRequired: true } as never) as Promise<
      Record<string, unknown>
    >;
  // requestState is a fresh random key each time.
  const comparable = (r: Record<string, unknown>) => ({ ...r, ...(r["requestState"] ? { requestState: "STATE" } : {}) });

  for (const [what, name, args] of [
    ["structured content", "echo", { text: "hi" }],
    ["an image", "picture", {}],
    ["a tool that fails", "fail", {}],
    ["an approval asked with input_required", "write_note", { path: "n.txt", text: "x" }],
  ] as const) {
    it(`answers ${what} as the SDK's way does`, async () => {
      const direct = await call(name, args);
      const checked = await call(name, args, { "example.com/trace": "1" });
      expect(comparable(direct)).toEqual(comparable(checked));
    });
  }
});
