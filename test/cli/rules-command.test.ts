import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";
import { tempDir } from "../support/tools.js";
import { loadConfig } from "../../src/config/config.js";
import { readRules, removeRule } from "../../src/cli/config-rules.js";

let ws: ReturnType<typeof tempDir>;
beforeEach(() => (ws = tempDir()));
afterEach(() => ws.cleanup());

describe("tackle rules", () => {
  it("adds, lists and removes rules, keeping the configuration's comments", async () => {
    expect((await runCli(["init", "--workspace", ws.dir])).code).toBe(0);
    const add = await runCli(["rules", "add", "shell(git status*)", "--workspace", ws.dir]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toMatch(/Added shell\(git status\*\) to permissions\.allow/);
    expect((await runCli(["rules", "add", "shell(curl *)", "--list", "deny", "--workspace", ws.dir])).code).toBe(0);
    const again = await runCli(["rules", "add", "shell(git status*)", "--workspace", ws.dir]);
    expect(again.stdout).toMatch(/already in permissions\.allow/);
    const file = path.join(ws.dir, "tackle.config.json");
    expect(readFileSync(file, "utf8")).toContain("// What runs without asking a person");
    expect(loadConfig({ workspace: ws.dir }).config.permissions).toEqual({
      allow: ["shell(git status*)"],
      ask: [],
      deny: ["shell(curl *)"],
    });
    const list = await runCli(["rules", "list", "--json", "--workspace", ws.dir]);
    expect(JSON.parse(list.stdout)).toEqual({ allow: ["shell(git status*)"], ask: [], deny: ["shell(curl *)"] });
    const text = await runCli(["rules", "list", "--workspace", ws.dir]);
    expect(text.stdout).toMatch(/allow\n {2}shell\(git status\*\)\nask\n {2}\(none\)\ndeny\n {2}shell\(curl \*\)/);
    const remove = await runCli(["rules", "remove", "shell(git status*)", "--workspace", ws.dir]);
    expect(remove.code, remove.stderr).toBe(0);
    expect(loadConfig({ workspace: ws.dir }).config.permissions?.allow).toEqual([]);
  }, 120_000);

  it("leaves a comma before tackle init's commented examples, so uncommenting one keeps the file valid", async () => {
    expect((await runCli(["init", "--workspace", ws.dir])).code).toBe(0);
    expect((await runCli(["rules", "add", "shell(npm test)", "--workspace", ws.dir])).code).toBe(0);
    const file = path.join(ws.dir, "tackle.config.json");
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/"shell\(npm test\)",\n\s*\/\/ "shell\(git status\*\)",/);
    writeFileSync(file, text.replace('// "shell(git status*)",', '"shell(git status*)",'));
    expect(loadConfig({ workspace: ws.dir }).config.permissions?.allow).toEqual(["shell(npm test)", "shell(git status*)"]);
    expect((await runCli(["rules", "remove", "shell(git status*)", "--workspace", ws.dir])).code).toBe(0);
    expect(loadConfig({ workspace: ws.dir }).config.permissions?.allow).toEqual(["shell(npm test)"]);
  }, 120_000);

  it("warns about a rule naming no tool, with the nearest name, but not about an MCP server's or a wildcard", async () => {
    const typo = await runCli(["rules", "add", "shel(ls)", "--workspace", ws.dir]);
    expect(typo.code).toBe(0);
    expect(typo.stderr).toMatch(/warning: no tool is named "shel"; did you mean "shell"\?/);
    const file = path.join(ws.dir, "tackle.config.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { github: { command: "gh-mcp" } }, tools: { deploy: { command: "make deploy" } } }));
    for (const rule of ["github__create_issue", "deploy", "web_*", "read_file(src/**)", "bash(ls)"]) {
      const r = await runCli(["rules", "add", rule, "--workspace", ws.dir]);
      expect(r.stderr, rule).not.toMatch(/warning/);
    }
    expect((await runCli(["rules", "add", "gitlab__x", "--workspace", ws.dir])).stderr).toMatch(/no tool is named "gitlab__x"/);
  }, 120_000);

  it("warns about an allow rule that can never let its command run unasked, judged by the policy itself", async () => {
    const rm = await runCli(["rules", "add", "shell(rm notes.txt)", "--workspace", ws.dir]);
    expect(rm.code).toBe(0);
    expect(rm.stderr).toMatch(/warning: shell\(rm notes\.txt\) can never let "rm notes\.txt" run unasked: .*deletes/);
    for (const rule of ["shell(git status)", "shell(npm run test:*)", "bash(npm test)"]) {
      expect((await runCli(["rules", "add", rule, "--workspace", ws.dir])).stderr, rule).not.toMatch(/warning/);
    }
    expect((await runCli(["rules", "add", "shell(rm notes.txt)", "--list", "deny", "--workspace", ws.dir])).stderr).not.toMatch(/warning/);
  }, 120_000);

  it("refuses a malformed rule and a rule that is not there, and creates the file when there is none", async () => {
    const bad = await runCli(["rules", "add", "bad rule(", "--workspace", ws.dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/malformed/);
    const missing = await runCli(["rules", "remove", "nope", "--workspace", ws.dir]);
    expect(missing.code).toBe(2);
    expect((await runCli(["rules", "add", "read_file", "--workspace", ws.dir])).code).toBe(0);
    expect(loadConfig({ workspace: ws.dir }).config.permissions).toEqual({ allow: ["read_file"] });
  }, 120_000);
});

describe("config-rules", () => {
  it("removes a rule from every list that has it, by its place among all entries, and keeps the rest", () => {
    const file = path.join(ws.dir, "tackle.config.json");
    writeFileSync(file, '{\n  // keep me\n  "permissions": { "allow": [1, "read_file", "shell"], "ask": ["shell"] }\n}\n');
    expect(removeRule(file, "shell")).toEqual(["allow", "ask"]);
    expect(readRules(file)).toEqual({ allow: ["read_file"], ask: [], deny: [] });
    expect(readFileSync(file, "utf8")).toContain("// keep me");
    expect(readFileSync(file, "utf8")).toContain('"allow": [1, "read_file"]');
  });

  it("removes the last of several rules (where jsonc-parser's own edit cuts one character short)", () => {
    const file = path.join(ws.dir, "tackle.config.json");
    writeFileSync(file, '{\n  "permissions": {\n    "allow": [\n      "a",\n      "b"\n      // c\n    ]\n  }\n}\n');
    expect(removeRule(file, "b")).toEqual(["allow"]);
    expect(readRules(file).allow).toEqual(["a"]);
    expect(readFileSync(file, "utf8")).toContain("// c");
    expect(removeRule(file, "a")).toEqual(["allow"]);
    expect(loadConfig({ workspace: ws.dir }).config.permissions?.allow).toEqual([]);
  });
});
