import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { createShellTools } from "../../../src/tools/shell/index.js";
import { shellSettingsFrom } from "../../../src/tools/shell/settings.js";
import { sandboxAvailable } from "../../../src/sandbox/sandbox.js";
import { makeWorkspace } from "./helpers.js";

let ws: ReturnType<typeof makeWorkspace>;
let available = false;
const config = { shell: { sandbox: true } };
const { tools } = createShellTools(shellSettingsFrom(config), config);
const shell = tools.find((t) => t.name === "shell")!;

beforeAll(async () => {
  ws = makeWorkspace();
  available = (await sandboxAvailable()).available;
});
afterAll(() => ws.cleanup());

describe("shell in the sandbox (config shell.sandbox: true)", () => {
  it("runs inside the workspace, writes there, and cannot write outside it", async (ctx) => {
    if (!available) ctx.skip();
    const outside = path.join(os.tmpdir(), `tackle-escape-${randomUUID()}`);
    const r = await shell.execute({ command: `echo inside > made.txt; touch ${outside}; pwd` }, { workspace: ws.workspace });
    expect(r.content).toContain(ws.root);
    expect(existsSync(path.join(ws.root, "made.txt"))).toBe(true);
    expect(existsSync(outside)).toBe(false);
  });

  it("does not see the host's home or other folders", async (ctx) => {
    if (!available) ctx.skip();
    const r = await shell.execute({ command: `ls ${os.homedir()} /work 2>&1; echo end` }, { workspace: ws.workspace });
    expect(r.content).toMatch(/No such file or directory/);
  });

  it("has no network, not even the host's 127.0.0.1", async (ctx) => {
    if (!available) ctx.skip();
    const net = await import("node:net");
    const server = net.createServer((s) => {
      // bash closes without reading the greeting, so the kernel may reset the connection.
      s.on("error", () => {});
      s.end("hello\n");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    try {
      const command = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected || echo refused`;
      const plain = createShellTools(shellSettingsFrom({ shell: { sandbox: "off" } })).tools[0]!;
      expect((await plain.execute({ command }, { workspace: ws.workspace })).content).toContain("connected");
      const r = await shell.execute({ command }, { workspace: ws.workspace });
      expect(r.content).toContain("refused");
    } finally {
      server.close();
    }
  });
});
