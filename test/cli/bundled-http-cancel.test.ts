import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { isAlive, stopProcess, waitFor } from "../mcp/server/helpers.js";
import { spawnEnv, tempDir } from "../support/tools.js";
import { CLI } from "./run-cli.js";

/** Pids of the processes whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker)) found.push(Number(name));
    } catch {
      // gone while listing
    }
  }
  return found;
}

// Over Streamable HTTP a 2026-era request is a connection of its own, answered through tackle's
// bridge between Node's server and the SDK's web handler: a client that gives up on a call closes
// it, and what the call started must end, in the command as it is shipped (the bundle).
describe("the bundled `tackle mcp --http`", () => {
  it("ends a running command when its 2026-era client abandons the call", async () => {
    const ws = tempDir();
    const proc = spawn(process.execPath, [CLI, "mcp", "--http", "0", "--no-token", "--approval", "all", "--workspace", ws.dir], {
      cwd: ws.dir,
      env: spawnEnv(),
      stdio: ["pipe", "ignore", "pipe"],
    });
    let err = "";
    const client = new Client({ name: "cancel-test", version: "2.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    const marker = `${20 + Math.floor(Math.random() * 9)}.${String(process.pid % 997).padStart(3, "0")}71`;
    try {
      const url = await new Promise<string>((resolve, reject) => {
        proc.stderr!.on("data", (d: Buffer) => {
          err += d.toString();
          const m = /listening on (\S+)/.exec(err);
          if (m) resolve(m[1]!);
        });
        proc.once("exit", (code) => reject(new Error(`exited ${code}: ${err}`)));
      });
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
      ws.cleanup();
    }
  }, 120_000);
});
