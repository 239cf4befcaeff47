import { afterEach, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openSession, type Session } from "../../../src/session.js";
import { createLogger } from "../../../src/core/logger.js";
import { FS_SERVER, killLeftovers, leftoverProcesses, uniqueMarker } from "./helpers.js";

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe("the reference filesystem MCP server, through a session", () => {
  it("lists its tools as fs__*, reads files and directories through the runner, and stops it on close", async () => {
    const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-mcp-fs-")));
    cleanup.push(() => rmSync(workspace, { recursive: true, force: true }));
    const data = path.join(workspace, "data");
    mkdirSync(path.join(data, "sub"), { recursive: true });
    writeFileSync(path.join(data, "hello.txt"), "Hello from the filesystem server\nsecond line\n");
    const marker = uniqueMarker();
    cleanup.push(() => killLeftovers(marker));
    // A second allowed directory named after the marker puts it in the server's command line.
    mkdirSync(path.join(workspace, marker));
    writeFileSync(
      path.join(workspace, "tackle.config.json"),
      JSON.stringify({
        mcpServers: {
          fs: { command: process.execPath, args: [FS_SERVER, data, path.join(workspace, marker)] },
          // Two broken servers beside it change nothing for it.
          nothing: { command: "/definitely/not/here" },
          nourl: { type: "http" },
        },
      }),
    );
    let session: Session | undefined;
    cleanup.push(async () => {
      await session?.close();
    });
    session = await openSession({ workspace, approval: "all", logger: createLogger("silent") });
    // Opening does not wait for MCP servers; their tools are there once they have connected.
    await session.mcpReady;
    const names = session.registry.names().filter((n) => n.startsWith("fs__"));
    expect(names).toEqual(expect.arrayContaining(["fs__read_file", "fs__list_directory", "fs__write_file"]));
    const listed = session.registry.get("fs__list_directory")!;
    expect(listed.effect).toBe("execute");
    expect(listed.inputSchema.properties).toHaveProperty("path");

    const read = await session.runner.run({ name: "fs__read_file", args: { path: path.join(data, "hello.txt") } });
    expect(read.status).toBe("success");
    expect(read.content).toContain("Hello from the filesystem server");
    expect(read.content).toContain("untrusted-content");

    const list = await session.runner.run({ name: "fs__list_directory", args: { path: data } });
    expect(list.status).toBe("success");
    expect(list.content).toMatch(/\[FILE\] hello\.txt/);
    expect(list.content).toMatch(/\[DIR\] sub/);

    // Outside its allowed directory, the server refuses: an error outcome, not a success.
    const outside = await session.runner.run({ name: "fs__read_file", args: { path: "/etc/hostname" } });
    expect(outside.status).toBe("error");

    // Missing required argument: refused by tackle before the server sees it.
    const invalid = await session.runner.run({ name: "fs__read_file", args: {} });
    expect(invalid.error?.code).toBe("INVALID_ARGS");

    const status = Object.fromEntries(session.mcp!.status().map((s) => [s.name, s.state]));
    expect(status).toEqual({ fs: "ready", nothing: "failed" });

    expect((await leftoverProcesses(marker, 0)).length).toBe(1);
    const pid = session.mcp!.connection("fs")!.pid!;
    await session.close();
    session = undefined;
    expect(() => process.kill(pid, 0)).toThrow();
    expect(await leftoverProcesses(marker)).toEqual([]);
  });

  it("opens no server when mcp is false", async () => {
    const workspace = mkdtempSync(path.join(os.tmpdir(), "tackle-mcp-fs-"));
    cleanup.push(() => rmSync(workspace, { recursive: true, force: true }));
    writeFileSync(
      path.join(workspace, "tackle.config.json"),
      JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, workspace] } } }),
    );
    const session = await openSession({ workspace, mcp: false, logger: createLogger("silent") });
    cleanup.push(() => session.close());
    expect(session.mcp).toBeUndefined();
    expect(session.registry.names().some((n) => n.startsWith("fs__"))).toBe(false);
  });
});
