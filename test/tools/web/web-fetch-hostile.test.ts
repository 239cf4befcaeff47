import { writeFileSync } from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { createWebFetchTool } from "../../../src/tools/web/web-fetch.js";
import { WebConfigSchema } from "../../../src/tools/web/config.js";
import { tempDir, spawnEnv } from "../../support/tools.js";
import { ROOT, TSX } from "../../mcp/server/helpers.js";
import type { Handler } from "../../fixtures/web/fake-server.js";
import { fakeServers, runnerFor } from "./helpers.js";

const serve = fakeServers();

async function fetchOnce(args: Record<string, unknown>) {
  const tool = createWebFetchTool(WebConfigSchema.parse({ allowPrivateNetwork: true }));
  const { runner } = runnerFor([tool]);
  const outcome = await runner.run({ name: "web_fetch", args });
  await runner.close();
  return outcome;
}

const TEN_MB = Buffer.alloc(10 * 1024 * 1024, "a");
const compressors: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  br: (b) => zlib.brotliCompressSync(b),
};

describe("web_fetch never lets a response take tackle down", () => {
  for (const [encoding, compress] of Object.entries(compressors)) {
    it(`stops a ${encoding} body that decodes past the cap, and keeps working`, async () => {
      const bomb = compress(TEN_MB);
      const server = await serve((_req, res) => {
        res.writeHead(200, { "content-type": "text/plain", "content-encoding": encoding, "content-length": bomb.length });
        res.end(bomb);
      });
      const outcome = await fetchOnce({ url: `${server.url}/bomb` });
      expect(outcome.status).toBe("success");
      expect(outcome.content).toMatch(/truncat|cut|first/i);
      // the process (this worker) is alive and fetches again
      expect((await fetchOnce({ url: `${server.url}/again` })).status).toBe("success");
    });
  }

  const broken: Array<[string, Handler]> = [
    [
      "a gzip body that is not gzip",
      (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
        res.end(Buffer.from("this is not compressed at all"));
      },
    ],
    [
      "a gzip body cut off half way",
      (_req, res) => {
        const full = zlib.gzipSync(Buffer.alloc(100_000, "b"));
        res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip", "content-length": full.length });
        res.write(full.subarray(0, full.length >> 1));
        res.socket?.destroy();
      },
    ],
    [
      "a connection reset mid-body",
      (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain", "content-length": 1_000_000 });
        res.write(Buffer.alloc(10_000, "c"));
        setImmediate(() => res.socket?.resetAndDestroy());
      },
    ],
    [
      "a body shorter than its Content-Length",
      (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain", "content-length": 5_000 });
        res.end("short");
        res.socket?.destroy();
      },
    ],
  ];
  for (const [what, handler] of broken) {
    it(`answers ${what} with an outcome, not a crash`, async () => {
      const server = await serve(handler);
      const outcome = await fetchOnce({ url: `${server.url}/broken` });
      expect(["success", "error"]).toContain(outcome.status);
      if (outcome.status === "error") expect(outcome.error?.message).toBeTruthy();
    });
  }
});

describe("web_fetch's time limit covers the whole call", () => {
  it("stops a body that trickles, and does not try again", async () => {
    const timers: NodeJS.Timeout[] = [];
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      timers.push(setInterval(() => res.write("."), 100));
    });
    try {
      const outcome = await fetchOnce({ url: `${server.url}/slow`, timeout: 1 });
      expect(outcome.status).toBe("error");
      expect(outcome.error?.code).toBe("TIMEOUT");
      expect(server.requests.filter((r) => r.url === "/slow")).toHaveLength(1);
    } finally {
      for (const t of timers) clearInterval(t);
    }
  });
});

describe("tackle mcp survives a hostile response", () => {
  it("answers the next request after fetching a gzip bomb", async () => {
    const bomb = zlib.gzipSync(TEN_MB);
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip", "content-length": bomb.length });
      res.end(bomb);
    });
    const ws = tempDir("tackle-mcp-bomb-");
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ approval: "all", web: { allowPrivateNetwork: true } }));
    writeFileSync(path.join(ws.dir, "hello.txt"), "still here\n");
    const client = new Client({ name: "bomb-test", version: "1.0.0" });
    const transport = new StdioClientTransport({
      env: spawnEnv(),
      command: process.execPath,
      args: ["--import", TSX, path.join(ROOT, "src/cli/main.ts"), "mcp", "--workspace", ws.dir],
      cwd: ws.dir,
      stderr: "pipe",
    });
    try {
      await client.connect(transport);
      const fetched = await client.callTool({ name: "web_fetch", arguments: { url: `${server.url}/bomb` } });
      expect(fetched.isError ?? false).toBe(false);
      const read = await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } });
      expect(JSON.stringify(read.content)).toContain("still here");
    } finally {
      await client.close();
      ws.cleanup();
    }
  }, 120_000);
});
