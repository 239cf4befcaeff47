import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { isLegacyRequest, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { surelyModern } from "../../../src/mcp/server/modern-claim.js";
import { runMcpServer } from "../../../src/mcp/server/server.js";
import { servedRegistry } from "../../fixtures/mcp/served-tools.js";
import { tempDir } from "../../support/tools.js";

/* The HTTP server's shortcut past the SDK's classification must never call legacy traffic modern. */

const KEY = PROTOCOL_VERSION_META_KEY;
const claim = (version: unknown = "2026-07-28") => ({ _meta: { [KEY]: version } });

const bodies: unknown[] = [
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "read", arguments: {}, ...claim() } },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: claim("2025-06-18") },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: claim(42) },
  { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, ...claim() } },
  { jsonrpc: "2.0", method: "notifications/initialized", params: claim("2025-06-18") },
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
  },
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" }, ...claim() },
  },
  { jsonrpc: "2.0", id: 1, result: {}, method: "tools/list", params: claim() },
  { jsonrpc: "2.0", id: 1, error: { code: 1, message: "x" }, method: "tools/list", params: claim() },
  { jsonrpc: "2.0", id: 1, result: { _meta: { [KEY]: "2026-07-28" } } },
  [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: claim() }],
  { jsonrpc: "2.0", id: 1, method: "tools/list" },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: [KEY] } },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: null } },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: [claim()] },
  { jsonrpc: "1.0", id: 1, method: "tools/list", params: claim() },
  { id: 1, method: 7, params: claim() },
  { params: claim() },
  "tools/list",
  null,
  42,
];

function post(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

describe("surelyModern", () => {
  const headerSets: Array<Record<string, string>> = [
    {},
    { "mcp-protocol-version": "2025-06-18" },
    { "mcp-protocol-version": "2026-07-28" },
    { "mcp-protocol-version": "2026-07-28", "mcp-method": "initialize" },
  ];

  it.each(bodies.map((b) => [JSON.stringify(b).slice(0, 90), b]))("is never true where the SDK says legacy: %s", async (_, body) => {
    for (const headers of headerSets) {
      const legacy = await isLegacyRequest(post(body, headers), body);
      if (surelyModern(body)) expect(legacy, JSON.stringify(headers)).toBe(false);
    }
  });

  it("takes the shortcut for a 2026-era client's calls and never for a 2025-era client's", async () => {
    const ws = tempDir();
    const handle = await runMcpServer({ registry: servedRegistry(), workspace: ws.dir, http: { port: 0 } });
    const seen: Array<{ era: string; body: unknown; legacy: boolean }> = [];
    const recording =
      (era: string) =>
      async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
        if (init?.method === "POST" && typeof init.body === "string") {
          const body = JSON.parse(init.body) as unknown;
          seen.push({ era, body, legacy: await isLegacyRequest(post(body, Object.fromEntries(new Headers(init.headers))), body) });
        }
        return fetch(input, init);
      };
    try {
      const modern = new ClientV2({ name: "t", version: "2" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      await modern.connect(new HttpV2(new URL(handle.url!), { fetch: recording("2026") }));
      await modern.callTool({ name: "echo", arguments: { text: "hi" } });
      await modern.close();
      const old = new ClientV1({ name: "t", version: "1" });
      await old.connect(new HttpV1(new URL(handle.url!), { fetch: recording("2025") }));
      await old.callTool({ name: "echo", arguments: { text: "hi" } });
      await old.close();
    } finally {
      await handle.close();
      ws.cleanup();
    }
    const calls = (era: string) => seen.filter((s) => s.era === era && (s.body as { method?: string }).method === "tools/call");
    expect(calls("2026").length).toBeGreaterThan(0);
    expect(calls("2025").length).toBeGreaterThan(0);
    expect(calls("2026").every((s) => surelyModern(s.body))).toBe(true);
    for (const s of seen) {
      if (s.era === "2025") expect(surelyModern(s.body)).toBe(false);
      if (surelyModern(s.body)) expect(s.legacy).toBe(false);
    }
  });
});
