import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMcpServer, type McpServerHandle } from "../../../src/mcp/server/server.js";
import { servedRegistry } from "../../fixtures/mcp/served-tools.js";
import { tempDir } from "../../support/tools.js";

/*
 * The bridge between Node's HTTP server and the SDK's web handler: a JSON answer goes out whole,
 * headers and body in one write with its length; an event stream still goes out as it comes; a
 * body tackle could not parse still reaches the SDK, which answers it.
 */

interface Seen {
  method: string | undefined;
  status: number;
  type: string | null;
  length: string | null;
  encoding: string | null;
  bytes: number;
}

describe("tackle's HTTP bridge to the MCP SDK", () => {
  let ws: ReturnType<typeof tempDir>;
  let handle: McpServerHandle;
  beforeAll(async () => {
    ws = tempDir();
    handle = await runMcpServer({ registry: servedRegistry(), workspace: ws.dir, http: { port: 0 } });
  });
  afterAll(async () => {
    await handle.close();
    ws.cleanup();
  });

  /** A fetch that notes each POST's answer: its headers and the bytes of its body. */
  const recording =
    (seen: Seen[]) =>
    async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const response = await fetch(input, init);
      if (init?.method !== "POST") return response;
      const method = typeof init.body === "string" ? (JSON.parse(init.body) as { method?: string }).method : undefined;
      const body = new Uint8Array(await response.arrayBuffer());
      seen.push({
        method,
        status: response.status,
        type: response.headers.get("content-type"),
        length: response.headers.get("content-length"),
        encoding: response.headers.get("transfer-encoding"),
        bytes: body.length,
      });
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    };

  it("sends a 2026-era JSON answer whole, with its length, and the client reads it", async () => {
    const seen: Seen[] = [];
    const client = new ClientV2({ name: "t", version: "2" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new HttpV2(new URL(handle.url!), { fetch: recording(seen) }));
    try {
      const result = await client.callTool({ name: "echo", arguments: { text: "héllo ✓" } });
      expect(JSON.stringify(result.content)).toContain("héllo ✓");
    } finally {
      await client.close();
    }
    const call = seen.find((s) => s.method === "tools/call");
    expect(call).toMatchObject({ status: 200, encoding: null });
    expect(call!.type).toMatch(/^application\/json/);
    // The length counts bytes, not characters: the text holds two multi-byte ones.
    expect(Number(call!.length)).toBe(call!.bytes);
  });

  it("still streams events as they come: progress reaches a 2026-era client before the result", async () => {
    const seen: Seen[] = [];
    const progress: number[] = [];
    const client = new ClientV2({ name: "t", version: "2" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new HttpV2(new URL(handle.url!), { fetch: recording(seen) }));
    try {
      const result = await client.callTool(
        { name: "slow", arguments: { steps: 3, delayMs: 5 } },
        { onprogress: (p: { progress: number }) => progress.push(p.progress) },
      );
      expect(JSON.stringify(result.content)).toContain("counted to 3");
    } finally {
      await client.close();
    }
    const call = seen.find((s) => s.method === "tools/call");
    expect(call!.type).toMatch(/^text\/event-stream/);
    expect(call!.length).toBeNull();
    expect(progress.length).toBeGreaterThan(0);
  });

  it("serves a 2025-era client's session as before", async () => {
    const client = new ClientV1({ name: "t", version: "1" });
    await client.connect(new HttpV1(new URL(handle.url!)));
    try {
      const result = await client.callTool({ name: "echo", arguments: { text: "old" } });
      expect(JSON.stringify(result.content)).toContain("old");
    } finally {
      await client.close();
    }
  });

  it("hands a body it could not parse to the SDK, which answers with a parse error", async () => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const opened = await fetch(handle.url!, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }),
    });
    await opened.text();
    const session = opened.headers.get("mcp-session-id");
    expect(session).toBeTruthy();
    const response = await fetch(handle.url!, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": session!, "mcp-protocol-version": "2025-06-18" },
      body: '{"jsonrpc":"2.0","id":2,"method":"tools/list",',
    });
    const answer = (await response.json()) as { error?: { code: number } };
    expect(response.status).toBe(400);
    expect(answer.error?.code).toBe(-32700);
  });

  it("answers a parsed 2026-era request without its body text: the SDK takes the parsed one", async () => {
    const response = await fetch(handle.url!, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "raw" }, _meta: { [PROTOCOL_VERSION_META_KEY]: "2026-07-28" } },
      }),
    });
    const text = await response.text();
    expect(response.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(text).toContain('"id":7');
  });
});
