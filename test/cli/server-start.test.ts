import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";
import { tempDir } from "../support/tools.js";

/** What a person reads when a server cannot start where it was asked to. */
describe("a port already in use", () => {
  it.each([
    ["serve", "--port"],
    ["mcp", "--http"],
  ])("tackle %s names the way out (%s 0)", async (command, flag) => {
    const ws = tempDir();
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
    const port = (taken.address() as { port: number }).port;
    try {
      const r = await runCli([command, flag, String(port), "--workspace", ws.dir], { timeoutMs: 120_000 });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`port ${port} is already in use`);
      expect(r.stderr).toContain(`${flag} 0`);
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
      ws.cleanup();
    }
  });
});

describe("a store that cannot be opened", () => {
  it.each([["serve", "--port", "0"], ["mcp"]])("tackle %s says which and why, never the password (exit 2)", async (...args) => {
    const ws = tempDir();
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    try {
      const r = await runCli([...args, "--workspace", ws.dir, "--store", `postgres://u:hunter2@127.0.0.1:${port}/db`], {
        timeoutMs: 120_000,
        input: "",
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/Cannot open the store at postgres:\/\/u:\*\*\*@127\.0\.0\.1/);
      expect(r.stderr).not.toContain("hunter2");
      const bad = await runCli([...args, "--workspace", ws.dir, "--store", "mysql://u:hunter2@h/db"], { timeoutMs: 120_000, input: "" });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/Unknown store "mysql:\/\/\.\.\.": use file/);
      expect(bad.stderr).not.toContain("hunter2");
    } finally {
      ws.cleanup();
    }
  });
});
