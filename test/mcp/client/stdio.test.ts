import { afterEach, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { type Logger } from "../../../src/core/logger.js";
import { McpManager } from "../../../src/mcp/client/manager.js";
import { fixtureServer, V2_SERVER, killLeftovers, leftoverProcesses, processesWith, uniqueMarker, until } from "./helpers.js";

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (lvl: string) => (m: string) => void lines.push(`${lvl}: ${m}`);
  return { lines, debug: push("debug"), info: push("info"), warn: push("warn"), error: push("error") };
}

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function setup(servers: Record<string, unknown>, options: { backoff?: Record<string, number> } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tackle-mcp-client-"));
  const registry = new ToolRegistry();
  const logger = recordingLogger();
  const manager = new McpManager(servers, { registry, logger, baseDir: dir, ...(options.backoff ? { backoff: options.backoff } : {}) });
  const runner = new ToolRunner({ registry, workspace: dir, approval: "all", cache: false, retry: false });
  cleanup.push(async () => {
    await manager.close();
    await runner.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, registry, logger, manager, runner };
}

describe("McpManager over stdio with the fixture server", () => {
  it("lists the tools as {server}__{tool} and calls them through the runner", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, registry, runner } = setup({ fx: fixtureServer(marker) });
    const tools = await manager.connectAll();
    expect(tools.map((t) => t.name)).toContain("fx__echo");
    expect(registry.has("fx__add")).toBe(true);
    const echo = await runner.run({ name: "fx__echo", args: { text: "hello" } });
    expect(echo.status).toBe("success");
    expect(echo.content).toContain("hello");
    expect(echo.content).toContain('<untrusted-content source="MCP server fx">');
    const add = await runner.run({ name: "fx__add", args: { a: 2, b: 3 } });
    expect(add.structured).toEqual({ sum: 5 });
    // Arguments are checked against the server's schema before anything is sent.
    const bad = await runner.run({ name: "fx__add", args: { a: "two", b: 3 } });
    expect(bad.status).toBe("error");
    expect(bad.error?.code).toBe("INVALID_ARGS");
  });

  it("works with a server on the 2.x SDK (2026-07-28 revision, serving 2025-era clients)", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, runner, registry } = setup({
      v2: { command: process.execPath, args: [V2_SERVER, "--marker", marker], trusted: true },
    });
    await manager.connectAll();
    expect(manager.connection("v2")!.serverInfo?.name).toBe("v2-fixture");
    expect(registry.get("v2__shout")!.effect).toBe("read");
    const out = await runner.run({ name: "v2__shout", args: { text: "quiet" } });
    expect(out.content).toContain("QUIET");
    expect(out.structured).toEqual({ shouted: "QUIET" });
    expect((await runner.run({ name: "v2__shout", args: {} })).error?.code).toBe("INVALID_ARGS");
  });

  it("keeps images, audio and resources, and turns isError into an error outcome", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, runner } = setup({ fx: fixtureServer(marker) });
    await manager.connectAll();
    const media = await runner.run({ name: "fx__media" });
    expect(media.status).toBe("success");
    expect(media.blocks?.map((b) => b.type)).toEqual(["image", "audio", "resource", "resource_link"]);
    expect(media.content).toContain("embedded notes");
    expect(media.content).toContain("[image image/png");
    const fail = await runner.run({ name: "fx__fail", args: { why: "bad input" } });
    expect(fail.status).toBe("error");
    expect(fail.error?.code).toBe("EXECUTION_ERROR");
    expect(fail.content).toContain("failed: bad input");
    expect(fail.content).toContain("untrusted-content");
  });

  it("treats annotations as untrusted unless the server is trusted", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, registry } = setup({ plain: fixtureServer(marker), trusted: fixtureServer(marker, { trusted: true }) });
    await manager.connectAll();
    expect(registry.get("plain__echo")!.effect).toBe("execute");
    expect(registry.get("trusted__echo")!.effect).toBe("read");
    expect(registry.get("trusted__slow")!.effect).toBe("destructive");
    // Untrusted servers' tools are asked about in safe mode.
    const runner = new ToolRunner({ registry, approval: "safe", cache: false });
    cleanup.push(() => runner.close());
    expect((await runner.run({ name: "plain__echo", args: { text: "x" } })).status).toBe("rejected");
    expect((await runner.run({ name: "trusted__echo", args: { text: "x" } })).status).toBe("success");
  });

  it("reports progress, resets the call timeout on progress, and cancels through the signal", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    // A 1.5 s inactivity limit, a call of 5 x 500 ms: it only finishes because progress resets it.
    const { manager, runner } = setup({ fx: fixtureServer(marker, { callTimeoutMs: 1_500 }) });
    await manager.connectAll();
    const progress: number[] = [];
    runner.on("tool.progress", (e) => void progress.push((e as { progress: number }).progress));
    const slow = await runner.run({ name: "fx__slow", args: { steps: 5, ms: 500 } });
    expect(slow.status).toBe("success");
    // The last notification may race the answer (the SDK drops progress after the response).
    expect(progress.slice(0, 4)).toEqual([1, 2, 3, 4]);

    const silent = await runner.run({ name: "fx__slow", args: { steps: 1, ms: 5_000 } });
    expect(silent.status).toBe("error");
    expect(silent.error?.code).toBe("TIMEOUT");

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const cancelled = await runner.run({ name: "fx__slow", args: { steps: 1, ms: 5_000 } }, { signal: controller.signal });
    expect(cancelled.status).toBe("cancelled");
    // The server heard about it (notifications/cancelled) and is still fine.
    const conn = manager.connection("fx")!;
    expect((await runner.run({ name: "fx__echo", args: { text: "still here" } })).status).toBe("success");
    expect(conn.state).toBe("ready");
  });

  it("skips a server whose command does not exist, and one that never answers, without blocking the others", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, registry, logger } = setup({
      missing: { command: `/nonexistent/${marker}` },
      silent: fixtureServer(marker, { connectTimeoutMs: 1_500 }, ["--mode", "hang"]),
      quitter: fixtureServer(marker, {}, ["--mode", "exit-at-start"]),
      good: fixtureServer(marker),
      broken: { transport: "stdio" },
      off: fixtureServer(marker, { disabled: true }),
    });
    await manager.connectAll();
    expect(registry.has("good__echo")).toBe(true);
    const status = Object.fromEntries(manager.status().map((s) => [s.name, s]));
    expect(status.good!.state).toBe("ready");
    expect(status.missing!.state).toBe("failed");
    expect(status.missing!.error).toMatch(/command not found|Cannot start/);
    expect(status.silent!.state).toBe("failed");
    expect(status.silent!.error).toMatch(/did not finish connecting within 1.5 s/);
    expect(status.silent!.error).toContain("hanging forever");
    expect(status.quitter!.error).toContain("refusing to start");
    expect(status.off).toBeUndefined();
    expect(logger.lines.some((l) => l.includes('"broken"') && l.includes("command"))).toBe(true);
    // The server that never answered was killed at its time limit, not left behind.
    const goodPid = manager.connection("good")!.pid!;
    expect(processesWith(marker)).toEqual([goodPid]);
    await manager.close();
    expect(await leftoverProcesses(marker)).toEqual([]);
  });

  it("drains a server that floods stderr (megabytes) and keeps only a tail", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, runner } = setup({ flood: fixtureServer(marker, {}, ["--mode", "flood"]) });
    await manager.connectAll();
    for (let i = 0; i < 3; i++) {
      const out = await runner.run({ name: "flood__echo", args: { text: `round ${i}` } });
      expect(out.status).toBe("success");
      expect(out.content).toContain(`round ${i}`);
    }
    expect(manager.connection("flood")!.state).toBe("ready");
  });

  it("skips lines on stdout that are not JSON-RPC (servers that log to stdout)", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, runner } = setup({ noisy: fixtureServer(marker, {}, ["--noisy-stdout"]) });
    await manager.connectAll();
    for (let i = 0; i < 3; i++) {
      const out = await runner.run({ name: "noisy__add", args: { a: i, b: 1 } });
      expect(out.structured).toEqual({ sum: i + 1 });
    }
  });

  it("caps what reaches the model like any tool's output", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, registry } = setup({ fx: fixtureServer(marker) });
    await manager.connectAll();
    const runner = new ToolRunner({ registry, approval: "all", maxOutputChars: 2_000, cache: false });
    cleanup.push(() => runner.close());
    const out = await runner.run({ name: "fx__echo", args: { text: "0123456789\n".repeat(5_000) } });
    expect(out.status).toBe("success");
    expect(out.content.length).toBeLessThan(3_000);
    expect(out.metadata?.truncated).toBe(true);
  });

  it("answers UNAVAILABLE when the server crashes mid-call, then respawns it", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, runner, registry } = setup({ fx: fixtureServer(marker) }, { backoff: { initialMs: 300 } });
    await manager.connectAll();
    const before = manager.connection("fx")!.pid!;
    const crash = await runner.run({ name: "fx__crash" });
    expect(crash.status).toBe("error");
    expect(crash.error?.code).toBe("UNAVAILABLE");
    expect(crash.content).toMatch(/went away during the call/);
    expect(crash.content).toContain("about to crash");
    // Meanwhile its tools say so clearly.
    const during = await runner.run({ name: "fx__echo", args: { text: "x" } });
    if (during.status === "error") expect(during.error?.code).toBe("UNAVAILABLE");
    await until(() => manager.connection("fx")!.state === "ready");
    const after = manager.connection("fx")!.pid!;
    expect(after).not.toBe(before);
    expect(registry.has("fx__echo")).toBe(true);
    expect((await runner.run({ name: "fx__echo", args: { text: "back" } })).content).toContain("back");
  });

  it("answers UNAVAILABLE (recoverable) while the server is being restarted", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    // A long first delay keeps it in the reconnecting state for the whole test.
    const { manager, runner } = setup({ fx: fixtureServer(marker) }, { backoff: { initialMs: 60_000 } });
    await manager.connectAll();
    process.kill(manager.connection("fx")!.pid!, "SIGKILL");
    await until(() => manager.connection("fx")!.state === "reconnecting");
    const out = await runner.run({ name: "fx__echo", args: { text: "x" } });
    expect(out.status).toBe("error");
    expect(out.error).toMatchObject({ code: "UNAVAILABLE", recoverable: true });
    expect(out.content).toContain('MCP server "fx" is not available (the process was killed by SIGKILL');
    expect(out.content).toContain("tackle is restarting it");
  });

  it("gives up after the configured number of failed restarts, and says so", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { dir } = { dir: mkdtempSync(path.join(os.tmpdir(), "tackle-mcp-flag-")) };
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const flag = path.join(dir, "fail");
    const { manager, runner, logger } = setup(
      { fx: fixtureServer(marker, {}, ["--fail-if-exists", flag]) },
      { backoff: { initialMs: 50, maxAttempts: 3 } },
    );
    await manager.connectAll();
    writeFileSync(flag, "");
    process.kill(manager.connection("fx")!.pid!, "SIGKILL");
    await until(() => manager.connection("fx")!.state === "failed");
    expect(logger.lines.filter((l) => l.includes('Restarting MCP server "fx" failed')).length).toBe(3);
    expect(logger.lines.some((l) => l.startsWith("error:") && l.includes("gave up after 3 restarts"))).toBe(true);
    const out = await runner.run({ name: "fx__echo", args: { text: "x" } });
    expect(out.error).toMatchObject({ code: "UNAVAILABLE", recoverable: false });
    expect(out.content).toContain("flag file present");
    expect(await leftoverProcesses(marker)).toEqual([]);
  });

  it("starts a server with tackle's own temporary folder (TMPDIR), beside the SDK's base environment", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "tackle-mcp-env-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const seen = path.join(dir, "seen.json");
    const script = `require("fs").writeFileSync(${JSON.stringify(seen)}, JSON.stringify(process.env)); process.exit(1);`;
    const { manager } = setup({ envy: { command: process.execPath, args: ["-e", script] } }, { backoff: { initialMs: 60_000 } });
    await manager.connectAll();
    await until(() => existsSync(seen));
    const env = JSON.parse(readFileSync(seen, "utf8")) as Record<string, string>;
    expect(process.env.TMPDIR).toBeTruthy();
    expect(env.TMPDIR).toBe(process.env.TMPDIR);
    expect(env.PATH).toBe(process.env.PATH);
    // Still the SDK's base and no more: nothing else of the parent's environment is passed.
    expect(env.XDG_STATE_HOME).toBeUndefined();
  });

  it("respawns a server killed from outside", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, runner } = setup({ fx: fixtureServer(marker) }, { backoff: { initialMs: 200 } });
    await manager.connectAll();
    const pid = manager.connection("fx")!.pid!;
    process.kill(pid, "SIGKILL");
    await until(() => manager.connection("fx")!.state === "reconnecting" || manager.connection("fx")!.pid !== pid);
    await until(() => manager.connection("fx")!.state === "ready" && manager.connection("fx")!.pid !== pid);
    const out = await runner.run({ name: "fx__pid" });
    expect(out.content).toContain(String(manager.connection("fx")!.pid));
  });

  it("refreshes the proxies on notifications/tools/list_changed", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, runner, registry } = setup({ fx: fixtureServer(marker) });
    await manager.connectAll();
    expect(registry.has("fx__late")).toBe(false);
    await runner.run({ name: "fx__add_tool", args: { tool_name: "late" } });
    await until(() => registry.has("fx__late"));
    expect((await runner.run({ name: "fx__late" })).content).toContain("I am late");
    await runner.run({ name: "fx__remove_tool" });
    await until(() => !registry.has("fx__echo"));
    expect(manager.status()[0]!.tools).not.toContain("fx__echo");
  });

  it("gives a colliding tool a distinct stable name instead of replacing a built-in", async () => {
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    const { manager, registry } = setup({ fx: fixtureServer(marker) });
    registry.register({
      name: "fx__echo",
      description: "a built-in that happens to have this name",
      inputSchema: {},
      execute: async () => "builtin",
    });
    await manager.connectAll();
    expect(registry.get("fx__echo")!.description).toContain("built-in");
    const proxied = manager.status()[0]!.tools.find((n) => n.startsWith("fx__echo_"));
    expect(proxied).toMatch(/^fx__echo_[0-9a-f]{10}$/);
    expect(manager.proxy(proxied!)).toMatchObject({ serverName: "fx", originalName: "echo" });
    await manager.close();
    // Closing removes only the manager's own tools.
    expect(registry.has("fx__echo")).toBe(true);
    expect(registry.has(proxied!)).toBe(false);
  });
});
