import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findConfigFile, loadConfig } from "../../src/config/config.js";
import { runCli } from "../cli/run-cli.js";
import { tempDir } from "../support/tools.js";

let base: ReturnType<typeof tempDir>;
beforeEach(() => (base = tempDir()));
afterEach(() => base.cleanup());

const at = (...p: string[]) => path.join(base.dir, ...p);
function file(rel: string, content: unknown): string {
  const full = at(rel);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, typeof content === "string" ? content : JSON.stringify(content));
  return full;
}

describe("the configuration is found from any subfolder of the project, as git finds a repository", () => {
  it("walks up from a subfolder, at any depth, to the nearest tackle.config.json", () => {
    const config = file("ws/tackle.config.json", { permissions: { deny: ["shell(curl *)"] } });
    mkdirSync(at("ws", "a", "b", "c"), { recursive: true });
    for (const dir of ["ws", "ws/a", "ws/a/b/c"]) expect(findConfigFile(at(dir), "/nonexistent-home")).toBe(config);
    const loaded = loadConfig({ dir: at("ws", "a", "b") });
    expect(loaded.file).toBe(config);
    expect(loaded.config.permissions?.deny).toEqual(["shell(curl *)"]);
    // The boundary is where tackle started: finding the configuration above widens nothing.
    expect(loaded.workspace).toBe(at("ws", "a", "b"));
  });

  it("the nearest file wins; a config.json above counts only with tackle's keys", () => {
    file("ws/tackle.config.json", { approval: "all" });
    const near = file("ws/sub/tackle.config.json", { approval: "ask" });
    mkdirSync(at("ws", "sub", "deeper"));
    expect(findConfigFile(at("ws", "sub", "deeper"), "/nonexistent-home")).toBe(near);

    file("other/config.json", { name: "some other program", port: 8080 });
    mkdirSync(at("other", "sub"));
    expect(findConfigFile(at("other", "sub"), "/nonexistent-home")).toBeUndefined();
    const tackles = file("mine/config.json", { mcpServers: {}, permissions: { deny: ["web_fetch"] } });
    mkdirSync(at("mine", "sub"));
    expect(findConfigFile(at("mine", "sub"), "/nonexistent-home")).toBe(tackles);
  });

  it("another program's config.json where tackle starts is not tackle's: the project's deny rules hold there", () => {
    const config = file("ws/tackle.config.json", { permissions: { deny: ["shell(curl *)"] } });
    file("ws/app/config.json", { name: "app", port: 8080, timeout: 30 });
    const warnings: string[] = [];
    const loaded = loadConfig({ dir: at("ws", "app"), env: {}, warn: (m) => warnings.push(m) });
    expect(loaded.file).toBe(config);
    expect(loaded.config.permissions?.deny).toEqual(["shell(curl *)"]);
    // One of its keys is one slip from tackle's: the person is told which file governs.
    expect(warnings.join("\n")).toMatch(
      /app\/config\.json has none of tackle's keys.*tackle\.config\.json governs here.*"timeout" \(did you mean "timeoutMs"\?\)/,
    );
    // The specs' own spellings count as tackle's keys.
    const spec = file("ws/docs/config.json", { DocumentsDirectory: "letters" });
    expect(findConfigFile(at("ws", "docs"), "/nonexistent-home")).toBe(spec);
  });

  it("what such a file holds reaches the terminal shown, never obeyed", async () => {
    file("ws/tackle.config.json", { approval: "ask" });
    file("ws/app/config.json", { "\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2Japproval": "all" });
    const listed = await runCli(["tools"], { cwd: at("ws", "app") });
    expect(listed.stderr).toContain("has none of tackle's keys");
    // tackle rules, which finds the file without loading it, says so too.
    const rules = await runCli(["rules", "list"], { cwd: at("ws", "app") });
    expect(rules.stderr).toContain("has none of tackle's keys");
    expect(rules.stderr).not.toMatch(/\u001b|\u0007/);
    expect(listed.stderr).not.toMatch(/\u001b|\u0007/);
    expect(listed.stderr).toContain("\\x1b]52;c;");
    file("ws/bad/tackle.config.json", { approval: "\u001b[2Jnever" });
    const bad = await runCli(["tools"], { cwd: at("ws", "bad") });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).not.toMatch(/\u001b/);
  });

  it("stops at the repository's root and at the home folder", () => {
    file("tackle.config.json", { approval: "all" });
    mkdirSync(at("repo", ".git"), { recursive: true });
    mkdirSync(at("repo", "src"), { recursive: true });
    expect(findConfigFile(at("repo", "src"), "/nonexistent-home")).toBeUndefined();
    const inRepo = file("repo/tackle.config.json", { approval: "ask" });
    expect(findConfigFile(at("repo", "src"), "/nonexistent-home")).toBe(inRepo);

    mkdirSync(at("home", "project"), { recursive: true });
    expect(findConfigFile(at("home", "project"), at("home"))).toBeUndefined();
    const homeConfig = file("home/tackle.config.json", { approval: "ask" });
    expect(findConfigFile(at("home", "project"), at("home"))).toBe(homeConfig);
  });

  it("tackle call in a subfolder keeps the project's deny rules, and tackle rules list names the file it read", async () => {
    const config = file("ws/tackle.config.json", { permissions: { deny: ["shell(curl *)", "shell(echo denied*)"] } });
    mkdirSync(at("ws", ".git"));
    mkdirSync(at("ws", "sub"));
    const sub = at("ws", "sub");
    const ran = await runCli(["call", "shell", "command=echo denied-but-ran", "--approval", "all", "--json"], { cwd: sub });
    expect(ran.stdout).not.toContain("denied-but-ran\n");
    expect(JSON.parse(ran.stdout)).toMatchObject({ status: "rejected", error: { code: "PERMISSION_DENIED" } });
    expect(ran.code).toBe(3);
    const listed = await runCli(["rules", "list"], { cwd: sub });
    expect(listed.stdout).toContain(path.relative(sub, config));
    expect(listed.stdout).toContain("shell(curl *)");
  });
});
