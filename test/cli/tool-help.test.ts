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
    expect(r.stdout).toContain("tackle call read_file path=README.md");
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
