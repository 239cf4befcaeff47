import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { McpManager } from "../../../src/mcp/client/manager.js";
import { withProcessLimits } from "../../../src/process/rlimits.js";
import { fixtureServer, killLeftovers, uniqueMarker } from "./helpers.js";

const marker = uniqueMarker();
let manager: McpManager | undefined;
afterEach(async () => {
  await manager?.close();
  manager = undefined;
  killLeftovers(marker);
});

/** The soft limits of a live process, by the names /proc uses ("Max cpu time" ...). */
function limitsOf(pid: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(`/proc/${pid}/limits`, "utf8").split("\n").slice(1)) {
    const m = /^(Max [a-z ]+?)\s{2,}(\S+)/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

async function pidOf(servers: Record<string, unknown>, name: string): Promise<number> {
  const registry = new ToolRegistry();
  manager = new McpManager(servers, { registry });
  await manager.connectAll();
  const runner = new ToolRunner({ registry, approval: "all" });
  const out = await runner.run({ name: `${name}__pid`, args: {} });
  await runner.close();
  expect(out.status, out.content).toBe("success");
  return Number(/\d+/.exec(out.content)![0]);
}

describe("MCP server processes run under limits", () => {
  it("by default: 3600 s of CPU, 1 GiB of memory, 1024 open files — and the server still works", async () => {
    const pid = await pidOf({ limited: fixtureServer(marker) }, "limited");
    const limits = limitsOf(pid);
    expect(limits["Max cpu time"]).toBe("3600");
    expect(limits["Max data size"]).toBe(String(1024 ** 3));
    expect(limits["Max open files"]).toBe("1024");
  });

  it("as configured per server, or none with limits: false", async () => {
    const pid = await pidOf(
      { strict: fixtureServer(marker, { limits: { cpuSeconds: 60, memoryBytes: 2 * 1024 ** 3, openFiles: 4096 } }) },
      "strict",
    );
    expect(limitsOf(pid)).toMatchObject({ "Max cpu time": "60", "Max data size": String(2 * 1024 ** 3), "Max open files": "4096" });
    await manager!.close();
    const free = await pidOf({ free: fixtureServer(marker, { limits: false }) }, "free");
    expect(limitsOf(free)["Max cpu time"]).toBe(limitsOf(process.pid)["Max cpu time"]);
  });

  it("refuses a limit that is not a positive whole number", () => {
    expect(() => withProcessLimits(["true"], { openFiles: 0 })).toThrow(/positive whole number/);
    expect(() => withProcessLimits(["true"], { cpuSeconds: 1.5 })).toThrow(/positive whole number/);
  });

  it("a memory limit stops a server that allocates past it", async () => {
    const { spawnSync } = await import("node:child_process");
    const argv = withProcessLimits([process.execPath, "-e", "const a = []; for (;;) a.push(Buffer.alloc(64 * 1024 * 1024, 1));"], {
      memoryBytes: 256 * 1024 ** 2,
    });
    const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", timeout: 60_000 });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/allocation failed|out of memory/i);
  });
});
