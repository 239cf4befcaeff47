import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { isLegacyRequest, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { surelyLegacy, surelyModern } from "../../../src/mcp/server/era-shortcut.js";
import { runMcpServer } from "../../../src/mcp/server/server.js";
import { servedRegistry } from "../../fixtures/mcp/served-tools.js";
import { tempDir } from "../../support/tools.js";

/* The HTTP server's shortcuts past the SDK's classification must never put a message in the wrong era. */

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
  { jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "read", arguments: { path: "x" } } },
  { jsonrpc: "2.0", id: 1.5, method: "tools/list" },
  { jsonrpc: "2.0", id: 2 ** 60, method: "tools/list" },
  { jsonrpc: "2.0", id: null, method: "tools/list" },
  { jsonrpc: "2.0", id: 1, method: "tools/list", extra: true },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { progressToken: 1 } } },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { progressToken: {} } } },
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: "x" },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", method: "notifications/initialized", id: {} },
  { jsonrpc: "2.0", id: 1, method: "tools/list", result: {} },
  { jsonrpc: "2.0", id: 1, result: {} },
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

describe("the era shortcuts", () => {
  const headerSets: Array<Record<string, string>> = [
    {},
    { "mcp-protocol-version": "2025-06-18" },
    { "mcp-protocol-version": " 2025-03-26\t" },
    { "mcp-protocol-version": "" },
    { "mcp-protocol-version": "2026-07-28" },
    { "mcp-protocol-version": "\t2026-07-28 " },
    { "mcp-protocol-version": "2027-01-01" },
    { "mcp-protocol-version": "2026-07-28", "mcp-method": "initialize" },
  ];

  it.each(bodies.map((b) => [JSON.stringify(b).slice(0, 90), b]))("agree with the SDK wherever they answer: %s", async (_, body) => {
    for (const headers of headerSets) {
      const legacy = await isLegacyRequest(post(body, headers), body);
      if (surelyModern(body)) expect(legacy, `surelyModern, ${JSON.stringify(headers)}`).toBe(false);
      if (surelyLegacy(body, headers["mcp-protocol-version"])) expect(legacy, `surelyLegacy, ${JSON.stringify(headers)}`).toBe(true);
    }
  });

  it("answer for the plain messages of each era", () => {
    expect(surelyModern(bodies[0])).toBe(true);
    expect(surelyLegacy({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "x", arguments: {} } }, "2025-06-18")).toBe(true);
    expect(surelyLegacy({ jsonrpc: "2.0", method: "notifications/initialized" }, undefined)).toBe(true);
  });

  it("take the shortcut for each era's real client calls, and only the right one", async () => {
    const ws = tempDir();
    const handle = await runMcpServer({ registry: servedRegistry(), workspace: ws.dir, http: { port: 0 } });
    const seen: Array<{ era: string; body: unknown; version: string | undefined; legacy: boolean }> = [];
    const recording =
      (era: string) =>
      async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
        if (init?.method === "POST" && typeof init.body === "string") {
          const body = JSON.parse(init.body) as unknown;
          const headers = Object.fromEntries(new Headers(init.headers));
          seen.push({ era, body, version: headers["mcp-protocol-version"], legacy: await isLegacyRequest(post(body, headers), body) });
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
    expect(calls("2025").every((s) => surelyLegacy(s.body, s.version))).toBe(true);
    for (const s of seen) {
      expect(s.legacy).toBe(s.era === "2025");
      if (surelyModern(s.body)) expect(s.legacy).toBe(false);
      if (surelyLegacy(s.body, s.version)) expect(s.legacy).toBe(true);
    }
  });
});
