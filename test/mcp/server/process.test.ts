import { spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servedRegistry } from "../../fixtures/mcp/served-tools.js";
import { tempDir } from "../../support/tools.js";
import { runMcpServer } from "../../../src/mcp/server/server.js";
import { connect, fixtureCommand, ROOT, spawnHttpServer, stopProcess, type SpawnedServer } from "./helpers.js";

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/** A raw HTTP request, with full control of Host and Origin (fetch forbids setting Host). */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body: unknown = INIT,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        let data = "";
        res.on("data", (d: Buffer) => (data += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

describe("tackle MCP server on stdio: the wire", () => {
  it("writes nothing but JSON-RPC to stdout, sends progress before the result, and exits when stdin closes", async () => {
    const ws = tempDir("tackle-mcp-wire-");
    const cmd = fixtureCommand(["--workspace", ws.dir]);
    const proc = spawn(cmd.command, cmd.args, { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
    try {
      let out = "";
      const done = new Promise<void>((resolve) =>
        proc.stdout!.on("data", (d: Buffer) => {
          out += d.toString();
          if (/"id":2[,}]/.test(out) && out.endsWith("\n")) resolve();
        }),
      );
      const send = (m: unknown) => proc.stdin!.write(`${JSON.stringify(m)}\n`);
      send(INIT);
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "chatty", arguments: {} } });
      send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "slow", arguments: { steps: 3, delayMs: 5 }, _meta: { progressToken: "p1" } },
      });
      await done;
      const messages = out
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      for (const m of messages) expect(m.jsonrpc).toBe("2.0");
      expect(messages.find((m) => m.id === 3)).toMatchObject({ result: { content: [{ type: "text", text: "said things" }] } });
      expect(out).not.toContain("chatty:");
      const resultAt = messages.findIndex((m) => m.id === 2);
      const progress = messages.slice(0, resultAt).filter((m) => m.method === "notifications/progress");
      expect(progress.map((m) => (m.params as { message: string }).message)).toEqual([
        "step 1\n",
        "step 1 of 3",
        "step 2\n",
        "step 2 of 3",
        "step 3\n",
        "step 3 of 3",
      ]);
      expect(messages.slice(resultAt + 1).filter((m) => m.method === "notifications/progress")).toEqual([]);

      const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
      proc.stdin!.end();
      expect(await exited).toBe(0);
    } finally {
      await stopProcess(proc);
      ws.cleanup();
    }
  });

  it("a 2.x client that negotiates (probe, then connect) lands on 2026-07-28", async () => {
    const ws = tempDir("tackle-mcp-neg-");
    const client = await connect({ era: "v2", wire: "stdio", negotiate: true, serverArgs: ["--workspace", ws.dir] });
    try {
      expect(client.protocolVersion()).toBe("2026-07-28");
      expect((await client.listTools()).length).toBeGreaterThan(0);
    } finally {
      await client.close();
      ws.cleanup();
    }
  });
});

describe("tackle MCP server over HTTP: access control", () => {
  const TOKEN = "test-token-0123456789abcdef";
  let ws: { dir: string; cleanup: () => void };
  let server: SpawnedServer;

  beforeAll(async () => {
    ws = tempDir("tackle-mcp-http-");
    server = await spawnHttpServer(["--workspace", ws.dir, "--token", TOKEN]);
  });
  afterAll(async () => {
    if (server) expect(await server.stop()).toBe(0);
    ws?.cleanup();
  });

  it("listens on 127.0.0.1 at /mcp", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it("refuses requests without the bearer token, or with a wrong one", async () => {
    const none = await rawPost(server.url, {});
    expect(none.status).toBe(401);
    expect(String(none.headers["www-authenticate"])).toMatch(/^Bearer/);
    expect((await rawPost(server.url, { authorization: "Bearer wrong-token" })).status).toBe(401);
    expect((await rawPost(server.url, { authorization: `Basic ${TOKEN}` })).status).toBe(401);
    expect((await rawPost(server.url, { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    // Every request is checked, not only the first of a session.
    const ok = await rawPost(server.url, { authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    const sessionId = String(ok.headers["mcp-session-id"]);
    const later = await rawPost(
      server.url,
      { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    );
    expect(later.status).toBe(401);
  });

  it("serves both SDK clients that send the token", async () => {
    for (const era of ["v1", "v2"] as const) {
      const client = await connect({ era, wire: "http", url: server.url, headers: { authorization: `Bearer ${TOKEN}` } });
      try {
        expect((await client.listTools()).map((t) => t.name)).toContain("echo");
      } finally {
        await client.close();
      }
    }
  });

  it("turns away foreign Host and Origin headers (DNS rebinding)", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const port = new URL(server.url).port;
    expect((await rawPost(server.url, { ...auth, host: `evil.example:${port}` })).status).toBe(403);
    expect((await rawPost(server.url, { ...auth, origin: "http://evil.example" })).status).toBe(403);
    expect((await rawPost(server.url, { ...auth, origin: `http://localhost:${port}` })).status).toBe(200);
    expect((await rawPost(server.url, { ...auth, host: `localhost:${port}` })).status).toBe(200);
  });

  it("answers 404 off /mcp and for unknown sessions", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await rawPost(server.url.replace(/\/mcp$/, "/other"), auth)).status).toBe(404);
    const unknown = await rawPost(
      server.url,
      { ...auth, "mcp-session-id": "no-such-session" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    );
    expect(unknown.status).toBe(404);
  });
});

describe("tackle MCP server: binding beyond loopback", () => {
  it("refuses to start on a non-loopback address without a token (process and library)", async () => {
    const cmd = fixtureCommand(["--http", "0", "--host", "0.0.0.0"]);
    const proc = spawn(cmd.command, cmd.args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    proc.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => proc.once("exit", resolve));
    expect(code).toBe(2);
    expect(err).toContain("without a bearer token");
    expect(err).not.toContain("listening on");

    await expect(runMcpServer({ registry: servedRegistry(), http: { port: 0, host: "0.0.0.0" } })).rejects.toThrow(
      /without a bearer token/,
    );
    await expect(runMcpServer({ registry: servedRegistry(), http: { port: 0, host: "192.168.1.10" } })).rejects.toThrow(
      /without a bearer token/,
    );
  });

  it("starts on 0.0.0.0 with a token and still checks it", async () => {
    const ws = tempDir("tackle-mcp-any-");
    const handle = await runMcpServer({
      registry: servedRegistry(),
      workspace: ws.dir,
      http: { port: 0, host: "0.0.0.0", token: "another-secret-token" },
    });
    try {
      const url = handle.url!.replace("0.0.0.0", "127.0.0.1");
      expect((await rawPost(url, {})).status).toBe(401);
      expect((await rawPost(url, { authorization: "Bearer another-secret-token" })).status).toBe(200);
    } finally {
      await handle.close();
      ws.cleanup();
    }
  });
});

describe("tackle MCP server over HTTP: 2025-era sessions", () => {
  it("closes a session left idle (no DELETE), and answers 404 for it afterwards", async () => {
    const ws = tempDir("tackle-mcp-idle-");
    const handle = await runMcpServer({ registry: servedRegistry(), workspace: ws.dir, http: { port: 0, sessionIdleMs: 150 } });
    try {
      const init = await rawPost(handle.url!, {});
      expect(init.status).toBe(200);
      const sessionId = String(init.headers["mcp-session-id"]);
      const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
      const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" };
      expect((await rawPost(handle.url!, headers, list)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 600));
      expect((await rawPost(handle.url!, headers, list)).status).toBe(404);
    } finally {
      await handle.close();
      ws.cleanup();
    }
  });
});
