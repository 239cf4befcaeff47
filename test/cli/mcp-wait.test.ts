import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/tools.js";
import { runCli } from "./run-cli.js";

// A configured MCP server that starts and then never answers: it notes that it started.
let ws: ReturnType<typeof tempDir>;
let started: string;
beforeEach(() => {
  ws = tempDir();
  started = path.join(ws.dir, "started");
  const silent = `require("fs").writeFileSync(${JSON.stringify(started)}, ""); process.stdin.resume(); setInterval(() => {}, 1 << 30);`;
  writeFileSync(
    path.join(ws.dir, "tackle.config.json"),
    JSON.stringify({ mcpServers: { quiet: { command: process.execPath, args: ["-e", silent] } } }),
  );
  writeFileSync(path.join(ws.dir, "a.txt"), "hello\n");
});
afterEach(() => ws.cleanup());

describe("the command line with an MCP server that never answers", { timeout: 120_000 }, () => {
  it("tackle call of a built-in tool never starts MCP servers", async () => {
    const r = await runCli(["call", "read_file", "path=a.txt", "--workspace", ws.dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("hello");
    expect(existsSync(started)).toBe(false);
    expect(r.stderr).not.toMatch(/quiet/);
  });

  it("tackle tools lists what is there and says which server is still starting", async () => {
    const r = await runCli(["tools", "--workspace", ws.dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("read_file");
    expect(existsSync(started)).toBe(true);
    expect(r.stderr).toMatch(/MCP server "quiet" is still starting after 2 s; its tools are not listed/);
    // Closing it is not a failure to report.
    expect(r.stderr).not.toMatch(/skipped|within 30 s/);
  });

  it("tackle call of one of its tools starts it, waits, and says it is still starting", async () => {
    writeFileSync(
      path.join(ws.dir, "tackle.config.json"),
      JSON.stringify({
        mcpWaitMs: 300,
        mcpServers: {
          quiet: {
            command: process.execPath,
            args: ["-e", `require("fs").writeFileSync(${JSON.stringify(started)}, ""); setInterval(() => {}, 1 << 30);`],
          },
        },
      }),
    );
    const r = await runCli(["call", "quiet__echo", "text=hi", "--workspace", ws.dir]);
    expect(r.code).not.toBe(0);
    expect(existsSync(started)).toBe(true);
    expect(r.stdout + r.stderr).toMatch(/no tool named "quiet__echo"\. Some MCP servers are still starting/);
  });
});
