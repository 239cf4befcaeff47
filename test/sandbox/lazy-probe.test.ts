import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI } from "../cli/run-cli.js";

let tmp: string;
let ws: string;
let client: Client | undefined;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "tackle-lazy-probe-"));
  ws = path.join(tmp, "ws");
  mkdirSync(ws);
  writeFileSync(path.join(ws, "a.txt"), "hello\n");
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  rmSync(tmp, { recursive: true, force: true });
});

const sandboxDirs = () => readdirSync(tmp).filter((n) => n.startsWith("tackle-sandbox-"));

describe("bubblewrap is probed on the first sandboxed call, never at start-up", () => {
  it("a running tackle mcp has prepared no sandbox until run_code is called", async () => {
    client = new Client({ name: "lazy-probe", version: "1.0.0" });
    const env = Object.fromEntries(
      Object.entries({ ...process.env, TMPDIR: tmp }).filter((e): e is [string, string] => e[1] !== undefined),
    );
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "mcp", "--workspace", ws, "--approval", "all"],
        env,
        stderr: "pipe",
      }),
    );
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("run_code");
    const read = await client.callTool({ name: "read_file", arguments: { path: "a.txt" } });
    expect(JSON.stringify(read.content)).toContain("hello");
    expect(sandboxDirs()).toEqual([]);
    // The first sandboxed call prepares it (where bubblewrap works; elsewhere it says why not).
    await client.callTool({ name: "run_code", arguments: { language: "bash", code: "echo hi" } }, undefined, { timeout: 120_000 });
    expect(sandboxDirs()).toHaveLength(1);
  }, 300_000);
});
