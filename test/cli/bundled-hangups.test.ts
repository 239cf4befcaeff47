import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { isAlive, listeningOn, stopProcess, waitFor } from "../mcp/server/helpers.js";
import { spawnEnv, tempDir } from "../support/tools.js";
import { CLI } from "./run-cli.js";
import { processesWith } from "../support/processes.js";

// Clients that go away mid-call, against the command as it is shipped (the bundle): what a call
// started ends, and what it would have changed stays as it was.
describe("the bundled `tackle mcp` when its client goes away", () => {
  it("over HTTP: ends a running command when its 2026-era client abandons the call", async () => {
    const ws = tempDir();
    const proc = spawn(process.execPath, [CLI, "mcp", "--http", "0", "--no-token", "--approval", "all", "--workspace", ws.dir], {
      cwd: ws.dir,
      env: spawnEnv(),
      stdio: ["pipe", "ignore", "pipe"],
    });
    const client = new Client({ name: "cancel-test", version: "2.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    // Far longer than the test waits for it to end, so only being stopped ends it in time.
    const marker = `${600 + Math.floor(Math.random() * 99)}.${String(process.pid % 997).padStart(3, "0")}71`;
    try {
      const { url } = await listeningOn(proc);
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const controller = new AbortController();
      const call = client.callTool({ name: "shell", arguments: { command: `sleep ${marker}` } }, { signal: controller.signal });
      call.catch(() => undefined);
      const [pid] = await waitFor(
        () => processesWith(`sleep${"\0"}${marker}`).length > 0 && processesWith(`sleep${"\0"}${marker}`),
        60_000,
      );
      controller.abort();
      await expect(call).rejects.toThrow();
      await waitFor(() => !isAlive(pid!), 30_000);
      // The server goes on serving.
      const after = await client.callTool({ name: "list_directory", arguments: { path: "." } });
      expect(after.isError ?? false).toBe(false);
    } finally {
      await client.close().catch(() => undefined);
      await stopProcess(proc, "SIGKILL");
      // A command the server failed to stop must not outlive the test.
      for (const pid of processesWith(`sleep${"\0"}${marker}`)) process.kill(pid, "SIGKILL");
      ws.cleanup();
    }
  }, 120_000);

  it("on stdio: exits cleanly, having written nothing, when the client hangs up while its person is asked", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws.dir, "a.txt"), "first");
    const proc = spawn(process.execPath, [CLI, "mcp", "--workspace", ws.dir], {
      cwd: ws.dir,
      env: spawnEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let err = "";
    proc.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    const send = (message: object) => proc.stdin!.write(`${JSON.stringify(message)}\n`);
    let buffered = "";
    const asked = new Promise<void>((resolve) => {
      proc.stdout!.on("data", (d: Buffer) => {
        buffered += d.toString();
        for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
          const message = JSON.parse(buffered.slice(0, nl)) as { id?: number; method?: string };
          buffered = buffered.slice(nl + 1);
          if (message.id === 1) {
            send({ jsonrpc: "2.0", method: "notifications/initialized" });
            send({
              jsonrpc: "2.0",
              id: 2,
              method: "tools/call",
              params: { name: "write_file", arguments: { path: "a.txt", content: "second" } },
            });
          }
          if (message.method === "elicitation/create") resolve();
        }
      });
    });
    const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
    try {
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: { elicitation: { form: {} } },
          clientInfo: { name: "hangup", version: "1" },
        },
      });
      await asked;
      // The question is still open (a request waiting on the connection) when the client goes.
      proc.stdin!.end();
      expect(await exited).toBe(0);
      expect(err).toBe("");
      expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("first");
    } finally {
      await stopProcess(proc, "SIGKILL");
      ws.cleanup();
    }
  }, 120_000);
});
