import http from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startServe, type ServeHandle, type ServeOptions } from "../../src/serve/server.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
const handles: ServeHandle[] = [];

beforeEach(() => {
  ws = tempDir();
  writeFileSync(path.join(ws.dir, "a.txt"), "alpha\nbeta\n");
});
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
  ws.cleanup();
});

async function serve(options: ServeOptions = {}): Promise<ServeHandle> {
  const handle = await startServe({ port: 0, workspace: ws.dir, mcp: false, ...options });
  handles.push(handle);
  return handle;
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: () => any;
}

/** A raw request, so Host and Origin can be set as an attacker would. */
function request(
  handle: ServeHandle,
  method: string,
  urlPath: string,
  options: { body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: handle.port,
        method,
        path: urlPath,
        headers: { ...(options.body !== undefined ? { "content-type": "application/json" } : {}), ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode!, headers: res.headers, text, json: () => JSON.parse(text) });
        });
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

const post = (h: ServeHandle, p: string, body: unknown, headers: Record<string, string> = {}) =>
  request(h, "POST", p, { body: JSON.stringify(body), headers });
const get = (h: ServeHandle, p: string, headers: Record<string, string> = {}) => request(h, "GET", p, { headers });

async function waitForApproval(h: ServeHandle, id: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const list = (await get(h, "/api/approvals")).json() as Array<{ toolCallId: string }>;
    const found = list.find((a) => a.toolCallId === id);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no approval ${id} appeared`);
}

const overwrite = (h: ServeHandle, id: string, content = "changed\n") =>
  post(h, "/api/calls", { name: "write_file", id, args: { path: "a.txt", content } });

describe("tackle serve API", () => {
  it("lists tools like tackle tools --json", async () => {
    const h = await serve();
    const r = await get(h, "/api/tools");
    expect(r.status).toBe(200);
    const tools = r.json() as Array<Record<string, unknown>>;
    const read = tools.find((t) => t.name === "read_file");
    expect(read).toMatchObject({ effect: "read", inputSchema: { type: "object" } });
    expect(Object.keys(read!).sort()).toEqual(["description", "effect", "inputSchema", "name", "outputSchema"]);
    expect(read!.outputSchema).toMatchObject({ type: "object" });
  });

  it("runs a read call to success and counts it in the metrics", async () => {
    const h = await serve();
    const r = await post(h, "/api/calls", { name: "read_file", args: { path: "a.txt" } });
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ status: "success", toolName: "read_file" });
    expect(r.json().content).toContain("alpha");
    const metrics = (await get(h, "/api/metrics")).json() as Array<{ tool?: string; name?: string }>;
    expect(JSON.stringify(metrics)).toContain("read_file");
  });

  it("holds a write that needs approval until it is approved", async () => {
    const h = await serve();
    const pending = overwrite(h, "w1");
    const approval = await waitForApproval(h, "w1");
    expect(approval).toMatchObject({
      toolCallId: "w1",
      tool: "write_file",
      args: { path: "a.txt", content: "changed\n" },
      effect: expect.any(String),
      reason: expect.any(String),
    });
    expect(approval.preview).toContain("+changed");
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("alpha\nbeta\n");
    const answer = await post(h, "/api/approvals/w1", { approved: true });
    expect(answer.status).toBe(200);
    expect((await pending).json()).toMatchObject({ status: "success" });
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("changed\n");
    expect((await get(h, "/api/approvals")).json()).toEqual([]);
  });

  it("rejects with the person's message and leaves the file alone", async () => {
    const h = await serve();
    const pending = overwrite(h, "w2");
    await waitForApproval(h, "w2");
    expect((await post(h, "/api/approvals/w2", { approved: false, message: "wrong file" })).status).toBe(200);
    const outcome = (await pending).json();
    expect(outcome.status).toBe("rejected");
    expect(outcome.userMessage).toBe("wrong file");
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("alpha\nbeta\n");
  });

  it("accepts spec 002's /approve and /reject forms", async () => {
    const h = await serve();
    let pending = overwrite(h, "s1", "one\n");
    await waitForApproval(h, "s1");
    expect((await request(h, "POST", "/api/approvals/s1/reject", { body: JSON.stringify({ message: "not now" }) })).status).toBe(200);
    expect(JSON.stringify((await pending).json())).toContain("not now");
    pending = overwrite(h, "s2", "two\n");
    await waitForApproval(h, "s2");
    expect((await request(h, "POST", "/api/approvals/s2/approve")).status).toBe(200);
    expect((await pending).json()).toMatchObject({ status: "success" });
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("two\n");
  });

  it("remembers 'always' for later calls like it", async () => {
    const h = await serve();
    const first = overwrite(h, "al1", "first\n");
    await waitForApproval(h, "al1");
    await post(h, "/api/approvals/al1", { approved: true, always: true });
    expect((await first).json()).toMatchObject({ status: "success" });
    // The same call again runs without asking.
    const second = await overwrite(h, "al2", "second\n");
    expect(second.json()).toMatchObject({ status: "success" });
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("second\n");
  });

  it("runs with modified arguments when the person edits them", async () => {
    const h = await serve();
    const pending = overwrite(h, "m1", "model's\n");
    await waitForApproval(h, "m1");
    await post(h, "/api/approvals/m1", { approved: true, modifiedArgs: { path: "a.txt", content: "person's\n" } });
    expect((await pending).json()).toMatchObject({ status: "success" });
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("person's\n");
  });

  it("streams tool.call, approval.requested and tool.result events in order", async () => {
    const h = await serve();
    const seen: string[] = [];
    const stream = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.get({ host: "127.0.0.1", port: h.port, path: "/api/events" }, resolve);
      req.on("error", reject);
    });
    expect(stream.headers["content-type"]).toContain("text/event-stream");
    let buffer = "";
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    stream.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const type = /^event: (.+)$/m.exec(frame)?.[1];
        if (!type) continue;
        seen.push(type);
        if (type === "approval.requested") {
          const data = JSON.parse(/^data: (.+)$/m.exec(frame)![1]!);
          expect(data).toMatchObject({ toolCallId: "e1", tool: "write_file" });
          void post(h, "/api/approvals/e1", { approved: true });
        }
        if (type === "tool.result") done();
      }
    });
    const outcome = await overwrite(h, "e1");
    await finished;
    expect(h.events.size).toBe(1);
    stream.destroy();
    expect(outcome.json()).toMatchObject({ status: "success" });
    const order = ["tool.call", "approval.requested", "approval.resolved", "tool.result"].map((t) => seen.indexOf(t));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(seen).toContain("agent.state");
    // The listener goes with the client.
    for (let i = 0; i < 200 && h.events.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(h.events.size).toBe(0);
  });

  it("tells the stream when the desk changes without any process's event (a call left by a process that died at once)", async () => {
    const h = await serve();
    const stream = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get({ host: "127.0.0.1", port: h.port, path: "/api/events" }, resolve).on("error", reject);
    });
    let text = "";
    const told = new Promise<void>((resolve) =>
      stream.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8");
        if (text.includes("event: desk.changed\n")) resolve();
      }),
    );
    await h.desk.store.post({
      id: "desk_left",
      request: { toolCallId: "left-1", tool: "shell", args: { command: "make" }, effect: "execute", reason: "it runs make" },
      instance: "elsewhere:1:dead",
      askedAt: Date.now(),
      expiresAt: Date.now() + 60_000,
    });
    await told;
    stream.destroy();
    expect((await get(h, "/api/approvals")).json()).toMatchObject([{ toolCallId: "left-1", orphaned: true }]);
  });

  it("rejects an approval nobody answers in time", async () => {
    const h = await serve({ approvalTimeoutMs: 200 });
    const outcome = (await overwrite(h, "t1")).json();
    expect(outcome.status).toBe("rejected");
    expect(JSON.stringify(outcome)).toMatch(/nobody answered/);
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("alpha\nbeta\n");
    expect((await post(h, "/api/approvals/t1", { approved: true })).status).toBe(404);
  });

  it("rejects what is pending when the server closes", async () => {
    const h = await serve();
    const pending = overwrite(h, "c1");
    await waitForApproval(h, "c1");
    await h.close();
    const outcome = (await pending).json();
    expect(outcome.status).toBe("rejected");
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("alpha\nbeta\n");
  });

  it("answers bad requests with JSON errors", async () => {
    const h = await serve({ maxBodyBytes: 1024 });
    const bad = await request(h, "POST", "/api/calls", { body: "{not json" });
    expect(bad.status).toBe(400);
    expect(bad.json().error).toMatch(/JSON/);
    const invalid = await post(h, "/api/calls", { args: {} });
    expect(invalid.status).toBe(400);
    expect(invalid.json().error).toMatch(/name/);
    const big = await request(h, "POST", "/api/calls", { body: JSON.stringify({ name: "read_file", args: { path: "x".repeat(5000) } }) });
    expect(big.status).toBe(413);
    expect(big.json().error).toMatch(/too large/);
    const unknown = await post(h, "/api/approvals/nope", { approved: true });
    expect(unknown.status).toBe(404);
    expect(unknown.json().error).toMatch(/nope/);
    expect((await get(h, "/api/nothing")).status).toBe(404);
    expect((await get(h, "/api/calls")).status).toBe(405);
  });

  it("accepts bodies up to 10 MB by default and refuses larger ones with 413", async () => {
    const h = await serve();
    const big = await request(h, "POST", "/api/calls", { body: Buffer.alloc(10 * 1024 * 1024 + 10, 0x20) });
    expect(big.status).toBe(413);
  });
});

describe("tackle serve safety", () => {
  it("requires the bearer token when one is set", async () => {
    const h = await serve({ token: "s3cret" });
    expect((await get(h, "/api/tools")).status).toBe(401);
    expect((await get(h, "/api/tools", { authorization: "Bearer wrong" })).status).toBe(401);
    expect((await get(h, "/api/tools", { authorization: "Bearer s3cret" })).status).toBe(200);
    // Only the event stream may carry it in the query (EventSource sends no headers).
    expect((await get(h, "/api/tools?token=s3cret")).status).toBe(401);
    const events = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get({ host: "127.0.0.1", port: h.port, path: "/api/events?token=s3cret" }, resolve).on("error", reject),
    );
    expect(events.statusCode).toBe(200);
    events.destroy();
    // The page itself holds no secrets; it takes the token from its address.
    expect((await get(h, "/")).status).toBe(200);
    // Spec 002's answers outside /api/ need it as much.
    for (const route of ["/approve", "/reject"]) {
      const r = await request(h, "POST", route, {
        body: JSON.stringify({ tool_call_id: "x" }),
        headers: { "content-type": "application/json" },
      });
      expect(r.status).toBe(401);
    }
  });

  it("refuses a non-loopback host without a token", async () => {
    await expect(startServe({ port: 0, host: "0.0.0.0", workspace: ws.dir, mcp: false })).rejects.toThrow(/token/);
  });

  it("refuses a Host header that is not this server (DNS rebinding)", async () => {
    const h = await serve();
    const r = await get(h, "/api/tools", { host: `evil.example:${h.port}` });
    expect(r.status).toBe(403);
    expect(r.json().error).toMatch(/Host/);
    expect((await get(h, "/", { host: `evil.example:${h.port}` })).status).toBe(403);
    expect((await get(h, "/api/tools", { host: `localhost:${h.port}` })).status).toBe(200);
  });

  it("refuses cross-origin requests and allows its own origin", async () => {
    const h = await serve();
    const cross = await post(h, "/api/calls", { name: "read_file", args: { path: "a.txt" } }, { origin: "http://evil.example" });
    expect(cross.status).toBe(403);
    const otherPort = await post(
      h,
      "/api/calls",
      { name: "read_file", args: { path: "a.txt" } },
      { origin: `http://127.0.0.1:${h.port + 1}` },
    );
    expect(otherPort.status).toBe(403);
    const own = await post(h, "/api/calls", { name: "read_file", args: { path: "a.txt" } }, { origin: `http://127.0.0.1:${h.port}` });
    expect(own.status).toBe(200);
    expect(own.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("the dashboard", () => {
  it("is served self-contained, with no external URLs", async () => {
    const h = await serve();
    const r = await get(h, "/");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toContain("text/html");
    expect(r.text).toContain("EventSource");
    expect(r.text).toContain("/api/approvals");
    expect(r.text).not.toMatch(/https?:\/\//);
    expect(r.text).not.toMatch(/\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    expect(r.text).not.toContain("innerHTML");
    expect(r.headers["content-security-policy"]).toContain("default-src 'none'");
  });
});
