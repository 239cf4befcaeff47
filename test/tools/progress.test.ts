import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../src/registry/registry.js";
import { ToolRunner } from "../../src/runtime/runner.js";
import type { ToolEvent } from "../../src/runtime/events.js";
import { FILE_TOOLS } from "../../src/tools/fs/index.js";
import { createGrepTool } from "../../src/tools/search/grep.js";
import { createGlobTool } from "../../src/tools/search/glob.js";
import { createShellTools } from "../../src/tools/shell/index.js";
import { shellSettingsFrom } from "../../src/tools/shell/settings.js";
import { createWebFetchTool } from "../../src/tools/web/web-fetch.js";
import { WebConfigSchema } from "../../src/tools/web/config.js";
import { tempDir } from "../support/tools.js";
import { fakeServers } from "./web/helpers.js";

const serve = fakeServers();
let ws: ReturnType<typeof tempDir>;
let runner: ToolRunner;
const before = process.env.TACKLE_PROGRESS_MS;

beforeAll(() => {
  // Ticks every few ms, so short test work shows what long work shows every second.
  process.env.TACKLE_PROGRESS_MS = "5";
});
afterAll(() => {
  if (before === undefined) delete process.env.TACKLE_PROGRESS_MS;
  else process.env.TACKLE_PROGRESS_MS = before;
});
beforeEach(() => {
  ws = tempDir();
  const registry = new ToolRegistry();
  registry.registerAll([
    ...FILE_TOOLS,
    createGrepTool({ backend: "builtin" }),
    createGlobTool(),
    ...createShellTools(shellSettingsFrom({})).tools,
    createWebFetchTool(WebConfigSchema.parse({ allowPrivateNetwork: true })),
  ]);
  runner = new ToolRunner({ registry, workspace: ws.dir, approval: "all", cache: false });
});
afterEach(async () => {
  await runner.close();
  ws.cleanup();
});

async function progressOf(name: string, args: Record<string, unknown>) {
  const events: Array<Extract<ToolEvent, { type: "tool.progress" }>> = [];
  const outcome = await runner.run({ name, args }, { onEvent: (e) => e.type === "tool.progress" && events.push(e) });
  expect(outcome.status, outcome.content).toBe("success");
  return events;
}

describe("built-in long work reports tool.progress", () => {
  it("shell: seconds running and output so far", async () => {
    const events = await progressOf("shell", { command: "echo started; sleep 0.5; echo done" });
    expect(events.length).toBeGreaterThan(0);
    expect(events.at(-1)!.message).toMatch(/^running for \d+ s; \d+ characters of output so far$/);
  });

  it("grep over a large tree: how long, and matches so far", async () => {
    for (let d = 0; d < 40; d++) {
      mkdirSync(path.join(ws.dir, `d${d}`));
      for (let f = 0; f < 100; f++) writeFileSync(path.join(ws.dir, `d${d}`, `f${f}.txt`), "alpha beta\n".repeat(50));
    }
    const grep = await progressOf("grep", { pattern: "beta" });
    expect(grep.length).toBeGreaterThan(0);
    expect(grep.at(-1)!.message).toMatch(/^searching for \d+ s; [\d,]+ matches so far$/);
  });

  it("read_file deep into a large file: bytes read of the file's size", async () => {
    const line = "x".repeat(99) + "\n";
    writeFileSync(path.join(ws.dir, "big.txt"), line.repeat(400_000));
    const events = await progressOf("read_file", { path: "big.txt", offset: 399_990, limit: 5 });
    expect(events.length).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ total: 40_000_000 });
    expect(events.at(-1)!.message).toMatch(/^read [\d,]+ of 40,000,000 bytes$/);
  });

  it("web_fetch: bytes downloaded of the size the server declared", async () => {
    const body = Buffer.alloc(1024 * 1024, "a");
    const server = await serve(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": String(body.length) });
      for (let i = 0; i < 8; i++) {
        res.write(body.subarray((i * body.length) / 8, ((i + 1) * body.length) / 8));
        await new Promise((r) => setTimeout(r, 20));
      }
      res.end();
    });
    const events = await progressOf("web_fetch", { url: `${server.url}/big.txt` });
    expect(events.length).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ progress: body.length, total: body.length });
  });

  it("short work sends none", async () => {
    writeFileSync(path.join(ws.dir, "small.txt"), "hi\n");
    process.env.TACKLE_PROGRESS_MS = "60000";
    try {
      expect(await progressOf("read_file", { path: "small.txt" })).toEqual([]);
    } finally {
      process.env.TACKLE_PROGRESS_MS = "5";
    }
  });
});
