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
