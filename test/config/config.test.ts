import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, parseConfig } from "../../src/config/config.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
beforeEach(() => (ws = tempDir()));
afterEach(() => ws.cleanup());

describe("configuration", () => {
  it("reads tackle.config.json, else config.json, in the workspace", () => {
    writeFileSync(path.join(ws.dir, "config.json"), JSON.stringify({ approval: "none" }));
    expect(loadConfig({ workspace: ws.dir }).config.approval).toBe("none");
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ approval: "all", permissions: { allow: ["read_file"] } }));
    const loaded = loadConfig({ workspace: ws.dir });
    expect(loaded.config).toMatchObject({ approval: "all", permissions: { allow: ["read_file"] } });
    expect(loaded.file).toBe(path.join(ws.dir, "tackle.config.json"));
    expect(loaded.workspace).toBe(ws.dir);
  });

  it("resolves workingDirectory against the config file", () => {
    mkdirSync(path.join(ws.dir, "project"));
    writeFileSync(path.join(ws.dir, "c.json"), JSON.stringify({ workingDirectory: "project" }));
    expect(loadConfig({ file: path.join(ws.dir, "c.json") }).workspace).toBe(path.join(ws.dir, "project"));
  });

  it("takes secrets from .env, with the environment winning", () => {
    writeFileSync(path.join(ws.dir, ".env"), "BRAVE_API_KEY=from-file\nOTHER=1\n");
    const loaded = loadConfig({ workspace: ws.dir, env: { BRAVE_API_KEY: "from-env" } });
    expect(loaded.env.BRAVE_API_KEY).toBe("from-env");
    expect(loaded.env.OTHER).toBe("1");
  });

  it("says which field is wrong, and keeps unknown sections for tool groups", () => {
    expect(() => parseConfig({ approval: "sometimes" })).toThrow(/approval/);
    expect(() => parseConfig({ mcpServers: { x: { args: "no" } } })).toThrow(/mcpServers\.x\.args/);
    expect(parseConfig({ web: { allowPrivateNetwork: true } })).toMatchObject({ web: { allowPrivateNetwork: true } });
  });

  it("reports unreadable and malformed files clearly", () => {
    writeFileSync(path.join(ws.dir, "tackle.config.json"), "{ nope");
    expect(() => loadConfig({ workspace: ws.dir })).toThrow(/not valid JSON/);
    expect(() => loadConfig({ file: path.join(ws.dir, "missing.json") })).toThrow(/Cannot read configuration/);
  });
});
