import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, parseConfig } from "../../src/config/config.js";
import { resolveServer } from "../../src/mcp/client/client-config.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
beforeEach(() => (ws = tempDir()));
afterEach(() => ws.cleanup());

describe("configuration keys in other spellings", () => {
  it("reads spec 000's PascalCase McpServerConfig (Transport, Command, Args, Env, Url)", () => {
    const config = parseConfig({
      mcpServers: {
        files: { Transport: "stdio", Command: "node", Args: ["server.js"], Env: { A: "1" } },
        remote: { Transport: "http", Url: "http://127.0.0.1:9/mcp" },
      },
    });
    expect(config.mcpServers?.["files"]).toMatchObject({ transport: "stdio", command: "node", args: ["server.js"], env: { A: "1" } });
    const remote = resolveServer("remote", config.mcpServers?.["remote"], { baseDir: ws.dir });
    expect(remote).toMatchObject({ transport: "http" });
    expect(remote.transport === "http" && remote.url.href).toBe("http://127.0.0.1:9/mcp");
    const files = resolveServer("files", { COMMAND: "node", ARGS: ["x.js"] }, { baseDir: ws.dir });
    expect(files).toMatchObject({ transport: "stdio", command: "node", args: ["x.js"] });
  });

  it("reads WorkingDirectory and spec 004's DocumentsDirectory as the workspace", () => {
    mkdirSync(path.join(ws.dir, "docs"));
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ DocumentsDirectory: "docs" }));
    const warnings: string[] = [];
    expect(loadConfig({ dir: ws.dir, env: {}, warn: (m) => warnings.push(m) }).workspace).toBe(path.join(ws.dir, "docs"));
    expect(warnings).toEqual([]);
    writeFileSync(path.join(ws.dir, "config.json"), JSON.stringify({ WorkingDirectory: "docs", Approval: "safe" }));
    const loaded = loadConfig({ file: path.join(ws.dir, "config.json"), env: {}, warn: (m) => warnings.push(m) });
    expect(loaded.workspace).toBe(path.join(ws.dir, "docs"));
    expect(loaded.config.approval).toBe("safe");
    expect(warnings).toEqual([]);
  });

  it("keeps the schema's own spelling when both are given, and still checks values", () => {
    expect(parseConfig({ approval: "all", Approval: "safe" }).approval).toBe("all");
    expect(() => parseConfig({ Approval: "sometimes" })).toThrow(/approval/);
    expect(() => parseConfig({ mcpServers: { x: { Command: 5 } } })).toThrow(/command/);
  });
});
