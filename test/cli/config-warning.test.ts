import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";
import { tempDir } from "../support/tools.js";
import { loadConfig } from "../../src/config/config.js";

let ws: ReturnType<typeof tempDir>;
beforeEach(() => (ws = tempDir()));
afterEach(() => ws.cleanup());

describe("unknown configuration keys", () => {
  it("warn on stderr once, naming the closest known key", async () => {
    writeFileSync(path.join(ws.dir, "tackle.config.json"), '{ "aproval": "all", "web": {} }');
    const r = await runCli(["tools", "--workspace", ws.dir]);
    expect(r.code, r.stderr).toBe(0);
    const warnings = r.stderr.split("\n").filter((l) => l.includes("aproval"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/unknown key "aproval" is ignored; did you mean "approval"\?/);
    expect(r.stdout).not.toContain("aproval");
  }, 120_000);

  it("name a misspelt rule list, whose rules would otherwise be dropped", () => {
    writeFileSync(path.join(ws.dir, "tackle.config.json"), '{ "permissions": { "alow": ["shell"], "deny": [] } }');
    const seen: string[] = [];
    loadConfig({ workspace: ws.dir, warn: (m) => seen.push(m) });
    expect(seen).toEqual([expect.stringMatching(/unknown key "permissions.alow" is ignored; did you mean "permissions.allow"\?/)]);
  });

  it("say nothing about known keys, including the tool groups' sections, and nothing twice", () => {
    writeFileSync(path.join(ws.dir, "tackle.config.json"), '{ "approval": "safe", "shell": {}, "lsp": {}, "zzzzzz": 1 }');
    const seen: string[] = [];
    loadConfig({ workspace: ws.dir, warn: (m) => seen.push(m) });
    loadConfig({ workspace: ws.dir, warn: (m) => seen.push(m) });
    expect(seen).toEqual([expect.stringMatching(/unknown key "zzzzzz" is ignored\.$/)]);
  }, 120_000);

  it("tackle init writes a configuration with no unknown keys", async () => {
    const r = await runCli(["init", "--workspace", ws.dir]);
    expect(r.code, r.stderr).toBe(0);
    const seen: string[] = [];
    loadConfig({ workspace: ws.dir, warn: (m) => seen.push(m) });
    expect(seen).toEqual([]);
  }, 120_000);
});

describe("rules that can never match", () => {
  it("a rule naming no tool warns once when the configuration is loaded, naming the nearest tool; known ones say nothing", async () => {
    writeFileSync(
      path.join(ws.dir, "tackle.config.json"),
      JSON.stringify({
        permissions: { allow: ["shel(ls)", "read_file(src/**)", "files__read", "mcp_*"], deny: ["wrte_file(.env)"] },
        mcpServers: { files: { command: "true" } },
      }),
    );
    const r = await runCli(["call", "read_file", "path=tackle.config.json", "--workspace", ws.dir]);
    expect(r.code, r.stderr).toBe(0);
    const warnings = r.stderr.split("\n").filter((l) => l.includes("will never match"));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/"shel\(ls\)" in permissions\.allow will never match: no tool is named "shel"; did you mean "shell"\?/);
    expect(warnings[1]).toMatch(/"wrte_file\(\.env\)" in permissions\.deny .*did you mean "write_file"\?/);
  }, 120_000);
});
