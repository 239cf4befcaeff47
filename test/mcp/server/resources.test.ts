import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, spawnEnv } from "../../support/tools.js";
import { isAlive, ROOT, TSX, waitFor } from "./helpers.js";

describe("tackle mcp offers the workspace's files as resources", () => {
  let ws: { dir: string; cleanup: () => void };
  let outside: { dir: string; cleanup: () => void };
  let client: Client;
  let pid: number | undefined;
  const uri = (rel: string) => pathToFileURL(path.join(ws.dir, rel)).href;

  beforeAll(async () => {
    ws = tempDir("tackle-mcp-res-");
    outside = tempDir("tackle-mcp-out-");
    writeFileSync(path.join(ws.dir, "README.md"), "# Project\n");
    mkdirSync(path.join(ws.dir, "src"));
    writeFileSync(path.join(ws.dir, "src", "a.ts"), "export const a = 1;\n");
    writeFileSync(path.join(ws.dir, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
    writeFileSync(path.join(ws.dir, ".env"), "TOKEN=secret\n");
    writeFileSync(path.join(ws.dir, ".gitignore"), "ignored/\n");
    mkdirSync(path.join(ws.dir, ".git"));
    mkdirSync(path.join(ws.dir, "ignored"));
    writeFileSync(path.join(ws.dir, "ignored", "x.txt"), "x\n");
    writeFileSync(path.join(outside.dir, "secret.txt"), "outside\n");
    symlinkSync(path.join(outside.dir, "secret.txt"), path.join(ws.dir, "link.txt"));
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ permissions: { deny: ["read_file(src/private/**)"] } }));
    mkdirSync(path.join(ws.dir, "src", "private"));
    writeFileSync(path.join(ws.dir, "src", "private", "p.txt"), "private\n");
    client = new Client({ name: "resources-test", version: "1.0.0" });
    const transport = new StdioClientTransport({
      env: spawnEnv(),
      command: process.execPath,
      args: ["--import", TSX, path.join(ROOT, "src/cli/main.ts"), "mcp", "--workspace", ws.dir],
      cwd: ws.dir,
      stderr: "pipe",
    });
    await client.connect(transport);
    pid = transport.pid ?? undefined;
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    if (pid) await waitFor(() => !isAlive(pid!));
    ws?.cleanup();
    outside?.cleanup();
  });

  it("lists them as file:// resources, .gitignore respected", async () => {
    expect(client.getServerCapabilities()?.resources).toBeDefined();
    const { resources } = await client.listResources();
    const names = resources.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(["README.md", "src/a.ts", "logo.png"]));
    expect(names).not.toContain("ignored/x.txt");
    expect(resources.find((r) => r.name === "README.md")).toMatchObject({ uri: uri("README.md"), mimeType: "text/markdown" });
  });

  it("reads text as text and binary as a blob", async () => {
    const readme = await client.readResource({ uri: uri("README.md") });
    expect(readme.contents[0]).toMatchObject({ uri: uri("README.md"), text: "# Project\n", mimeType: "text/markdown" });
    const png = await client.readResource({ uri: uri("logo.png") });
    expect(png.contents[0]).toMatchObject({ mimeType: "image/png", blob: expect.any(String) });
  });

  it("refuses what read_file refuses: secrets, deny rules, links out, paths outside, other schemes", async () => {
    for (const bad of [
      uri(".env"),
      uri("src/private/p.txt"),
      uri("link.txt"),
      pathToFileURL(path.join(outside.dir, "secret.txt")).href,
      "https://example.com/x",
    ]) {
      await expect(client.readResource({ uri: bad }), bad).rejects.toThrow();
    }
    await expect(client.readResource({ uri: uri("nope.txt") })).rejects.toThrow(/not found|nope/i);
  });
});
