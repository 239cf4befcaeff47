import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonWhenWhole } from "../../../src/mcp/server/json-when-whole.js";
import { tempDir } from "../../support/tools.js";
import { spawnHttpServer, type SpawnedServer } from "./helpers.js";

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache", "mcp-session-id": "s-1" };

/** An event stream whose chunks come when `push` is called; `end` closes it. */
function liveStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    cancel: () => {
      cancelled = true;
    },
  });
  return {
    response: new Response(body, { headers: SSE_HEADERS }),
    push: (text: string) => controller.enqueue(new TextEncoder().encode(text)),
    end: () => controller.close(),
    cancelled: () => cancelled,
  };
}

const event = (message: unknown, id?: string) => `event: message\n${id ? `id: ${id}\n` : ""}data: ${JSON.stringify(message)}\n\n`;
const result = (id: number | string) => ({ result: { content: [{ type: "text", text: "a\n\nb" }] }, jsonrpc: "2.0", id });

describe("jsonWhenWhole", () => {
  it("a stream holding only the request's response goes out as that JSON, its session header kept", async () => {
    const s = liveStream();
    const answer = jsonWhenWhole(s.response, 7, new AbortController().signal);
    s.push(event(result(7)));
    s.end();
    const got = await answer;
    expect(got.headers.get("content-type")).toBe("application/json");
    expect(got.headers.get("mcp-session-id")).toBe("s-1");
    expect(got.headers.get("cache-control")).toBeNull();
    expect(await got.json()).toEqual(result(7));
  });

  it("an event split across chunks is read whole", async () => {
    const s = liveStream();
    const answer = jsonWhenWhole(s.response, "x", new AbortController().signal);
    const text = event(result("x"));
    s.push(text.slice(0, 20));
    s.push(text.slice(20, -1));
    s.push(text.slice(-1));
    s.end();
    expect(await (await answer).json()).toEqual(result("x"));
  });

  const streamed: Array<[string, string[]]> = [
    [
      "progress before the response",
      [event({ method: "notifications/progress", params: { progress: 1 }, jsonrpc: "2.0" }), event(result(1))],
    ],
    [
      "a question to the client (elicitation) first",
      [event({ method: "elicitation/create", params: {}, jsonrpc: "2.0", id: 0 }), event(result(1))],
    ],
    ["a keep-alive first", [": keepalive\n\n", event(result(1))]],
    ["an event with an id (a resumable stream)", [event(result(1), "ev-1")]],
    ["another request's response", [event(result(2))]],
    ["two events in one chunk", [event(result(1)) + ": trailing\n\n"]],
    ["data that is not JSON", ["event: message\ndata: {nope\n\n"]],
  ];
  for (const [what, chunks] of streamed) {
    it(`stays a stream, every byte in order, with ${what}`, async () => {
      const s = liveStream();
      const answer = jsonWhenWhole(s.response, 1, new AbortController().signal);
      for (const chunk of chunks) s.push(chunk);
      s.end();
      const got = await answer;
      expect(got.headers.get("content-type")).toBe("text/event-stream");
      expect(await got.text()).toBe(chunks.join(""));
    });
  }

  it("more after the response keeps it a stream, the rest passed on as it comes", async () => {
    const s = liveStream();
    const answer = jsonWhenWhole(s.response, 1, new AbortController().signal);
    s.push(event(result(1)));
    s.push(": late\n\n");
    const got = await answer;
    expect(got.headers.get("content-type")).toBe("text/event-stream");
    const text = got.text();
    s.push(": later\n\n");
    s.end();
    expect(await text).toBe(event(result(1)) + ": late\n\n: later\n\n");
  });

  it("answers a stream as soon as its first event is not the response, without waiting for the rest", async () => {
    const s = liveStream();
    const answer = jsonWhenWhole(s.response, 1, new AbortController().signal);
    s.push(event({ method: "notifications/progress", params: { progress: 1 }, jsonrpc: "2.0" }));
    const got = await answer;
    const reader = got.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("notifications/progress");
    s.push(event(result(1)));
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(event(result(1)));
    s.end();
    expect((await reader.read()).done).toBe(true);
  });

  it("a stream that ends before any event, and a client that goes away, give an empty stream", async () => {
    const ended = liveStream();
    const first = jsonWhenWhole(ended.response, 1, new AbortController().signal);
    ended.end();
    expect(await (await first).text()).toBe("");

    const gone = liveStream();
    const controller = new AbortController();
    const second = jsonWhenWhole(gone.response, 1, controller.signal);
    controller.abort();
    expect(await (await second).text()).toBe("");
    expect(gone.cancelled()).toBe(true);
  });

  it("leaves answers that are not streams as they are", async () => {
    const plain = Response.json({ ok: true }, { status: 202 });
    expect(await jsonWhenWhole(plain, 1, new AbortController().signal)).toBe(plain);
    const empty = new Response(null, { status: 202, headers: SSE_HEADERS });
    expect(await jsonWhenWhole(empty, 1, new AbortController().signal)).toBe(empty);
  });
});

describe("tackle mcp --http, 2025-era sessions on the wire", () => {
  let ws: { dir: string; cleanup: () => void };
  let server: SpawnedServer;
  let session = "";
  const headers = () => ({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
    ...(session ? { "mcp-session-id": session } : {}),
  });
  const post = (body: unknown) => fetch(server.url, { method: "POST", headers: headers(), body: JSON.stringify(body) });

  beforeAll(async () => {
    ws = tempDir("tackle-json-when-whole-");
    server = await spawnHttpServer(["--workspace", ws.dir]);
    const init = await post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    expect(init.headers.get("content-type")).toBe("application/json");
    session = init.headers.get("mcp-session-id") ?? "";
    expect(session).not.toBe("");
    expect(((await init.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe("2025-06-18");
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
  });

  afterAll(async () => {
    if (server) expect(await server.stop()).toBe(0);
    ws?.cleanup();
  });

  it("a call that sends nothing before its result is answered as one JSON body", async () => {
    const reply = await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } });
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.headers.get("mcp-session-id")).toBe(session);
    const body = (await reply.json()) as { id: number; result: { structuredContent: unknown } };
    expect(body.id).toBe(1);
    expect(body.result.structuredContent).toEqual({ echo: "hi", length: 2 });
  });

  it("a call that reports progress is streamed: the progress, then the result", async () => {
    const reply = await post({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "slow", arguments: { steps: 2, delayMs: 5 }, _meta: { progressToken: "p" } },
    });
    expect(reply.headers.get("content-type")).toBe("text/event-stream");
    const data = (await reply.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as { method?: string; id?: number });
    expect(data[0]!.method).toBe("notifications/progress");
    expect(data.at(-1)!.id).toBe(2);
  });
});
