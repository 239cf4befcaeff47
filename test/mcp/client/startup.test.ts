import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSession, type Session } from "../../../src/session.js";
import { tempDir } from "../../support/tools.js";
import { fixtureServer, killLeftovers, leftoverProcesses, uniqueMarker } from "./helpers.js";

let ws: ReturnType<typeof tempDir>;
let marker: string;
let session: Session | undefined;
beforeEach(() => {
  ws = tempDir();
  marker = uniqueMarker();
});
afterEach(async () => {
  await session?.close();
  session = undefined;
  killLeftovers(marker);
  ws.cleanup();
});

function configure(config: Record<string, unknown>): void {
  writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify(config));
}

/** Resolves once the session's registry holds `name`. */
function joined(s: Session, name: string): Promise<void> {
  return new Promise((resolve) => {
    if (s.registry.has(name)) return resolve();
    const off = s.registry.onChange(() => {
      if (!s.registry.has(name)) return;
      off();
      resolve();
    });
  });
}

describe("MCP servers never hold a session's start-up", () => {
  it("opens at once with a silent server and a slow one; the slow one's tools join when it answers", async () => {
    const go = path.join(ws.dir, "go");
    configure({
      mcpServers: {
        silent: fixtureServer(marker, { connectTimeoutMs: 600_000 }, ["--mode", "hang"]),
        slow: fixtureServer(marker, {}, ["--name", "slow", "--start-after", go]),
      },
    });
    session = await openSession({ workspace: ws.dir, mcpWaitMs: 0, approval: "all" });
    // Neither server has answered: the session is open without their tools.
    expect(session.registry.has("slow__echo")).toBe(false);
    writeFileSync(go, "");
    await joined(session, "slow__echo");
    const outcome = await session.runner.run({ name: "slow__echo", args: { text: "here" } });
    expect(outcome.content).toContain("here");
    expect(session.mcp!.status().find((s) => s.name === "silent")?.state).not.toBe("connected");
  });

  it("a call to a tool of a server still connecting waits for it (not for the silent one)", async () => {
    const go = path.join(ws.dir, "go");
    configure({
      mcpWaitMs: 600_000,
      mcpServers: {
        silent: fixtureServer(marker, { connectTimeoutMs: 600_000 }, ["--mode", "hang"]),
        slow: fixtureServer(marker, {}, ["--name", "slow", "--start-after", go]),
      },
    });
    session = await openSession({ workspace: ws.dir, mcpWaitMs: 0, approval: "all" });
    const call = session.runner.run({ name: "slow__echo", args: { text: "waited" } });
    writeFileSync(go, "");
    expect((await call).content).toContain("waited");
  });

  it("a call waits no longer than mcpWaitMs, then says the tool is unknown and that servers are still starting", async () => {
    configure({ mcpWaitMs: 300, mcpServers: { silent: fixtureServer(marker, { connectTimeoutMs: 600_000 }, ["--mode", "hang"]) } });
    session = await openSession({ workspace: ws.dir });
    const outcome = await session.runner.run({ name: "silent__echo", args: {} });
    expect(outcome.error?.code).toBe("UNKNOWN_TOOL");
    expect(outcome.error?.message).toMatch(/still starting/);
    // The wait is spent once: a later call for a missing tool does not wait again.
    await session.runner.waitForTools(["silent__other"]);
    expect((await session.runner.run({ name: "silent__other", args: {} })).error?.message).toMatch(/still starting/);
  });

  it("by default opening waits for no MCP server, and built-in tools never wait for one", async () => {
    configure({ mcpServers: { silent: fixtureServer(marker, { connectTimeoutMs: 600_000 }, ["--mode", "hang"]) } });
    writeFileSync(path.join(ws.dir, "a.txt"), "here\n");
    session = await openSession({ workspace: ws.dir });
    // Open while the server has not answered (it never will): the session did not wait for it.
    expect(session.mcp!.status()).toMatchObject([{ name: "silent", state: "connecting" }]);
    const outcome = await session.runner.run({ name: "read_file", args: { path: "a.txt" } });
    expect(outcome.status).toBe("success");
    expect(session.mcp!.status()).toMatchObject([{ name: "silent", state: "connecting" }]);
  });

  it("closing the session while a server is still connecting stops its process", async () => {
    configure({ mcpServers: { silent: fixtureServer(marker, { connectTimeoutMs: 600_000 }, ["--mode", "hang"]) } });
    session = await openSession({ workspace: ws.dir, mcpWaitMs: 0 });
    await session.close();
    session = undefined;
    expect(await leftoverProcesses(marker, 30_000)).toEqual([]);
  }, 60_000);
});
