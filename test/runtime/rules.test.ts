import { describe, expect, it } from "vitest";
import { commandMatches, parseRule, pathMatches, ruleCovers } from "../../src/runtime/rules.js";
import { domainMatches } from "../../src/net/domain.js";
import { redact } from "../../src/core/redact.js";
import { capOutput } from "../../src/runtime/output-cap.js";

describe("rules", () => {
  it("parses tool and tool(pattern)", () => {
    expect(parseRule("shell")).toEqual({ tool: "shell", source: "shell" });
    expect(parseRule("shell(git status*)")).toEqual({ tool: "shell", pattern: "git status*", source: "shell(git status*)" });
    expect(parseRule("web_fetch(*)")).toEqual({ tool: "web_fetch", source: "web_fetch(*)" });
    expect(parseRule("github__*")).toMatchObject({ tool: "github__*" });
    expect(() => parseRule("bad rule")).toThrow(/malformed/);
  });

  it("matches commands by whole-command pattern, and the `:*` prefix form", () => {
    expect(commandMatches("git status*", "git status")).toBe(true);
    expect(commandMatches("git status*", "git status --short")).toBe(true);
    expect(commandMatches("git status*", "git push")).toBe(false);
    expect(commandMatches("git status", "git status --short")).toBe(false);
    expect(commandMatches("npm run test:*", "npm run test")).toBe(true);
    expect(commandMatches("npm run test:*", "npm run test:unit")).toBe(true);
    expect(commandMatches("npm run test:*", "npm run test --watch")).toBe(true);
    expect(commandMatches("npm run test:*", "npm run testevil")).toBe(false);
    expect(commandMatches("ls (x)", "ls (x)")).toBe(true);
  });

  it("matches domains and their subdomains only", () => {
    expect(domainMatches("example.com", "example.com")).toBe(true);
    expect(domainMatches("example.com", "api.example.com")).toBe(true);
    expect(domainMatches("example.com", "evilexample.com")).toBe(false);
    expect(domainMatches("*.example.com", "example.com")).toBe(false);
    expect(domainMatches("*.example.com", "a.example.com")).toBe(true);
  });

  it("matches path globs and directories", () => {
    expect(pathMatches("src/**/*.ts", "src/a/b.ts")).toBe(true);
    expect(pathMatches("docs", "docs/x/y.md")).toBe(true);
    expect(pathMatches("docs", "docs-evil/x")).toBe(false);
    expect(pathMatches(".env", ".env")).toBe(true);
    expect(pathMatches("./notes/*", "notes/a")).toBe(true);
  });

  it("needs every subject for allow and any subject for deny", () => {
    const allow = parseRule("shell(git status*)");
    expect(ruleCovers(allow, ["shell"], "command", ["git status", "rm -rf x"], true)).toBe(false);
    expect(ruleCovers(allow, ["shell"], "command", ["git status", "rm -rf x"], false)).toBe(true);
    expect(ruleCovers(allow, ["shell", "bash"], "command", [], true)).toBe(false);
    expect(ruleCovers(parseRule("bash"), ["shell", "bash"], undefined, [], true)).toBe(true);
  });
});

describe("redaction", () => {
  it("hides secrets by key and by shape", () => {
    const out = redact({
      apiKey: "abc",
      nested: { Authorization: "Bearer x" },
      text: "use sk-ant-REDACTME0123456789abcdef now",
      cmd: "curl -H 'Authorization: Bearer abc.def' --password=hunter2",
      n: 1,
    });
    const s = JSON.stringify(out);
    expect(s).not.toMatch(/abc"|REDACTME|hunter2|Bearer x/);
    expect(out).toMatchObject({ apiKey: "[REDACTED]", n: 1 });
  });
});

describe("capOutput", () => {
  it("leaves short text alone and cuts long text at line boundaries with a notice", () => {
    expect(capOutput("short", 100)).toEqual({ text: "short", truncated: false });
    const text = Array.from({ length: 1000 }, (_, i) => `row ${i}`).join("\n");
    const cut = capOutput(text, 500, () => "/tmp/full.txt");
    expect(cut.truncated).toBe(true);
    expect(cut.text.startsWith("row 0\n")).toBe(true);
    expect(cut.text.endsWith("row 999")).toBe(true);
    expect(cut.text).toMatch(/\[\.\.\. [\d,]+ characters cut \(lines \d+–\d+\)\. The full output \(1,000 lines\) is in \/tmp\/full\.txt/);
  });
});
