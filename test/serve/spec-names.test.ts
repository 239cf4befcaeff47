import http from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startServe, type ServeHandle } from "../../src/serve/server.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
let handle: ServeHandle;

beforeEach(async () => {
  ws = tempDir();
  writeFileSync(path.join(ws.dir, "a.txt"), "alpha\n");
  handle = await startServe({ port: 0, workspace: ws.dir, mcp: false });
});
afterEach(async () => {
  await handle.close();
  ws.cleanup();
});

function call(method: string, urlPath: string, body?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: handle.port, method, path: urlPath, headers: { "content-type": "application/json" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Collects server-sent events until `done` says the list is complete. */
function collectEvents(done: (events: Array<{ type: string; data: any }>) => boolean): {
  ready: Promise<void>;
  all: Promise<Array<{ type: string; data: any }>>;
} {
  let onReady!: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  const all = new Promise<Array<{ type: string; data: any }>>((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port: handle.port, path: "/api/events" }, (res) => {
      const events: Array<{ type: string; data: any }> = [];
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (buffer === "" && events.length === 0) onReady();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const type = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (type && data) events.push({ type, data: JSON.parse(data) });
        }
        if (done(events)) {
          req.destroy();
          resolve(events);
        }
      });
    });
    req.on("error", reject);
  });
  return { ready, all };
}

async function pending(): Promise<any[]> {
  for (;;) {
    const list = (await call("GET", "/api/approvals")).json as any[];
    if (list.length > 0) return list;
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("tackle serve speaks spec 002's names too", () => {
  it("takes tool, params, tool_call_id and context; the approval shows the context; the outcome has the snake_case fields", async () => {
    const stream = collectEvents((events) => events.some((e) => e.type === "tool.result"));
    await stream.ready;
    const outcome = call("POST", "/api/calls", {
      tool: "write_file",
      params: { path: "a.txt", content: "beta\n" },
      tool_call_id: "tc_abc123",
      context: "Fixing authentication bug",
    });
    const [request] = await pending();
    expect(request).toMatchObject({
      toolCallId: "tc_abc123",
      tool_call_id: "tc_abc123",
      tool: "write_file",
      args: { path: "a.txt", content: "beta\n" },
      params: { path: "a.txt", content: "beta\n" },
      requires_approval: true,
      context: "Fixing authentication bug",
    });
    expect((await call("POST", "/api/approvals/tc_abc123/approve", {})).status).toBe(200);
    const reply = await outcome;
    expect(reply.json).toMatchObject({ status: "success", toolCallId: "tc_abc123", tool_call_id: "tc_abc123" });
    expect(typeof reply.json.execution_time_ms).toBe("number");
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("beta\n");

    const events = await stream.all;
    const started = events.find((e) => e.type === "tool.call")!.data;
    expect(started).toMatchObject({ tool: "write_file", tool_call_id: "tc_abc123", requires_approval: true, params: { path: "a.txt" } });
    const result = events.find((e) => e.type === "tool.result")!.data;
    expect(result).toMatchObject({ status: "success", tool_call_id: "tc_abc123" });
    expect(typeof result.result).toBe("string");
  });

  it("still answers tackle's own names, and says what is missing when neither name is given", async () => {
    const ok = await call("POST", "/api/calls", { name: "read_file", args: { path: "a.txt" } });
    expect(ok.json.status).toBe("success");
    const missing = await call("POST", "/api/calls", { params: { path: "a.txt" } });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatch(/name \(or tool\) is required/);
  });

  it("answers POST /approve and /reject with the call named in the body, and writes spec 002's result formats", async () => {
    const written = call("POST", "/api/calls", { tool: "write_file", params: { path: "a.txt", content: "beta\n" }, tool_call_id: "w1" });
    await pending();
    expect((await call("POST", "/approve", { tool_call_id: "w1" })).status).toBe(200);
    const ok = (await written).json;
    expect(ok).toMatchObject({ status: "success", tool_call_id: "w1", result: { metadata: { bytes_written: 5, path: "a.txt" } } });
    expect(typeof ok.result.content).toBe("string");
    expect(typeof ok.execution_time_ms).toBe("number");

    const refused = call("POST", "/api/calls", { tool: "write_file", params: { path: "a.txt", content: "gamma\n" }, tool_call_id: "w2" });
    await pending();
    expect((await call("POST", "/reject", { tool_call_id: "w2", user_message: "Wrong file path" })).status).toBe(200);
    expect((await refused).json).toMatchObject({
      status: "rejected",
      tool_call_id: "w2",
      reason: "User rejected the operation",
      user_message: "Wrong file path",
    });
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("beta\n");
    const unnamed = await call("POST", "/approve", {});
    expect(unnamed.status).toBe(400);
    expect(JSON.stringify(unnamed.json)).toMatch(/tool_call_id/);
  });
});
