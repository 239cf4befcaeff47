import { describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";
import { toolHelpArgv } from "../../src/cli/program.js";

describe("help for one tool", () => {
  it("tackle tools read_file describes parameters, types, required, effect and an example", async () => {
    const r = await runCli(["tools", "read_file"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {2}path\s+string, required$/m);
    expect(r.stdout).toMatch(/^ {2}limit\s+integer, optional, default 2000$/m);
    expect(r.stdout).toMatch(/^Effect: read$/m);
    expect(r.stdout).toMatch(/^Retried: up to 3 times, with backoff, after a failure that may pass .*; not after running out of time$/m);
    expect(r.stdout).toContain("tackle call read_file path=README.md");
  }, 120_000);

  it("says which tools tackle tries again by itself: after timeouts for web reads, never for commands", async () => {
    const fetch = await runCli(["tools", "web_fetch"]);
    expect(fetch.stdout).toMatch(/^Retried: .* or running out of time$/m);
    const shell = await runCli(["tools", "shell"]);
    expect(shell.stdout).toMatch(/^Retried: never \(running it twice could do twice what it does\)$/m);
  }, 120_000);

  it("tackle call <tool> --help describes the tool, keeping the flags that choose the registry", async () => {
    const r = await runCli(["call", "shell", "--help"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {2}command\s+string, required$/m);
    expect(r.stdout).toContain("tackle call shell command='ls -la'");
    expect(toolHelpArgv(["node", "tackle", "call", "edit", "-h", "--toolset", "coding", "--json", "x=1"])).toEqual([
      "node",
      "tackle",
      "tools",
      "edit",
      "--toolset",
      "coding",
    ]);
    expect(toolHelpArgv(["node", "tackle", "call", "--help"])).toBeUndefined();
  }, 120_000);

  it("an unknown tool is a usage error with the nearest names", async () => {
    const r = await runCli(["tools", "shel"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Did you mean "shell"/);
  }, 120_000);

  it("every command's --help has examples", async () => {
    for (const command of [[], ["tools"], ["call"], ["mcp"], ["serve"], ["init"]]) {
      const r = await runCli([...command, "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout, command.join(" ")).toMatch(/\nExamples:\n {2}tackle/);
    }
  }, 120_000);
});
