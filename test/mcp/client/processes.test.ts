import { afterEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { McpManager } from "../../../src/mcp/client/manager.js";
import { trackedCount } from "../../../src/mcp/client/process-cleanup.js";
import {
  fixtureServer,
  killLeftovers,
  leftoverProcesses,
  NPX_LIKE_WRAPPER,
  processesWith,
  STDIO_SERVER,
  uniqueMarker,
  until,
} from "./helpers.js";

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function connect(servers: Record<string, unknown>) {
  const registry = new ToolRegistry();
  const manager = new McpManager(servers, { registry });
  cleanup.push(() => manager.close());
  await manager.connectAll();
  const runner = new ToolRunner({ registry, approval: "all", cache: false, retry: false });
  cleanup.push(() => runner.close());
  return { manager, registry, runner };
}

describe("MCP server processes", () => {
  it("kills a server started through `sh -c` (shell stays as the parent), whole tree", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, runner } = await connect({
      wrapped: { command: "sh", args: ["-c", `"${process.execPath}" "${STDIO_SERVER}" --marker ${marker}; exit $?`] },
    });
    expect((await runner.run({ name: "wrapped__echo", args: { text: "via sh" } })).content).toContain("via sh");
    const running = processesWith(marker);
    expect(running.length).toBeGreaterThanOrEqual(2); // sh and node
    await manager.close();
    expect(await leftoverProcesses(marker)).toEqual([]);
  });

  it("kills a server behind an npx-like wrapper whose grandchild left the process group", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, runner } = await connect({
      npxlike: { command: process.execPath, args: [NPX_LIKE_WRAPPER, STDIO_SERVER, "--marker", marker] },
    });
    const pidOut = await runner.run({ name: "npxlike__pid" });
    const serverPid = Number(pidOut.content.match(/\n(\d+)\n/)?.[1]);
    expect(serverPid).toBeGreaterThan(0);
    // The real server is in another process group than the wrapper tackle started.
    expect(processesWith(marker)).toContain(serverPid);
    await manager.close();
    expect(await leftoverProcesses(marker)).toEqual([]);
  });

  it("kills the tree even when the wrapper died first and left the server orphaned", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, runner } = await connect({
      npxlike: { command: process.execPath, args: [NPX_LIKE_WRAPPER, STDIO_SERVER, "--marker", marker] },
    });
    const wrapperPid = manager.connection("npxlike")!.pid!;
    // The wrapper dies alone (as npm can); the server keeps our pipes and keeps working.
    process.kill(wrapperPid, "SIGKILL");
    await until(() => !processesWith(marker).includes(wrapperPid));
    await manager.close();
    expect(await leftoverProcesses(marker)).toEqual([]);
    void runner;
  });

  it("leaves nothing behind when tackle is killed with SIGTERM or SIGINT", async () => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const marker = uniqueMarker();
      cleanup.push(() => killLeftovers(marker));
      const dir = mkdtempSync(path.join(os.tmpdir(), "tackle-mcp-signal-"));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const manager = fileURLToPath(new URL("../../../src/mcp/client/manager.js", import.meta.url));
      const script = path.join(dir, "host.mts");
      writeFileSync(
        script,
        `import { McpManager } from ${JSON.stringify(manager)};
const m = new McpManager(${JSON.stringify({
          direct: fixtureServer(marker),
          flood: fixtureServer(marker, {}, ["--mode", "flood"]),
          wrapped: { command: process.execPath, args: [NPX_LIKE_WRAPPER, STDIO_SERVER, "--marker", marker] },
          shell: { command: "sh", args: ["-c", `"${process.execPath}" "${STDIO_SERVER}" --marker ${marker}; exit $?`] },
        })});
const tools = await m.connectAll();
process.stdout.write("ready " + tools.length + "\\n");
setInterval(() => {}, 1 << 30);
`,
      );
      const host = spawn(process.execPath, ["--import", "tsx", script], {
        stdio: ["ignore", "pipe", "pipe"],
        cwd: fileURLToPath(new URL("../../../", import.meta.url)),
      });
      cleanup.push(() => void host.kill("SIGKILL"));
      let out = "";
      host.stdout.on("data", (c: Buffer) => (out += c.toString()));
      let err = "";
      host.stderr.on("data", (c: Buffer) => (err += c.toString()));
      await until(() => out.includes("ready") || host.exitCode !== null, 25_000).catch(() => {});
      expect(out, err).toMatch(/ready \d+/);
      expect(processesWith(marker).length).toBeGreaterThanOrEqual(6);
      // Megabytes of server stderr, none of it on tackle's own stderr.
      expect(err).not.toContain("flood");
      expect(err).not.toContain("ready (pid");
      const exited = new Promise<number | null>((resolve) => host.once("exit", (code) => resolve(code)));
      host.kill(signal);
      expect(await exited).toBe(signal === "SIGTERM" ? 143 : 130);
      expect(await leftoverProcesses(marker)).toEqual([]);
    }
  }, 60_000);

  it("kills a server that ignores both its closed stdin and SIGTERM", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, runner } = await connect({ stubborn: fixtureServer(marker, {}, ["--stubborn"]) });
    expect((await runner.run({ name: "stubborn__echo", args: { text: "hi" } })).status).toBe("success");
    await manager.close();
    expect(await leftoverProcesses(marker)).toEqual([]);
  });

  it("untracks every process once closed, so no signal handler stays installed", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const before = trackedCount();
    const { manager } = await connect({ a: fixtureServer(marker), b: fixtureServer(marker) });
    expect(trackedCount()).toBe(before + 2);
    await manager.close();
    expect(trackedCount()).toBe(before);
  });
});
