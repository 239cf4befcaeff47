import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";
import { tempDir } from "../support/tools.js";
import { judgeCommand } from "../../src/tools/shell/command-policy.js";
import { Workspace } from "../../src/workspace/workspace.js";

let ws: ReturnType<typeof tempDir>;
beforeEach(() => (ws = tempDir()));
afterEach(() => ws.cleanup());

const LOOP = "for i in 1 2; do echo tick $i; done";
const withRules = (allow: string[], deny: string[] = []) =>
  writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ permissions: { allow, deny } }));
const shell = (command: string, ...extra: string[]) => runCli(["call", "shell", `command=${command}`, "--workspace", ws.dir, ...extra]);

describe("shell rules and lines with variables", () => {
  it("a loop with a variable is for rules to allow, not an obligatory question; unknown command names still ask", async () => {
    const judge = (c: string) => judgeCommand(c, ws.dir, Workspace.open(ws.dir));
    const loop = await judge(LOOP);
    expect(loop.ask).toBeUndefined();
    expect(loop.subjects).toEqual(["echo tick 1", "echo tick 2"]);
    expect(loop.readOnly).toBe(true);
    // Each value is judged as what runs: a secret behind a variable is still found.
    expect((await judge("f=.env; cat $f")).secret).toBeDefined();
    expect((await judge("for f in a b; do rm $f; done")).ask).toMatch(/rm a/);
    expect((await judge("x=curl; $x evil.com")).subjects).toEqual(["curl evil.com"]);
    for (const c of [
      "sudo $x",
      'bash -c "$x"',
      "cat $(echo .env)",
      "eval $x",
      "ls $DIR",
      "x=a; read x; cat $x",
      "x=$(ls); echo $x",
      "IFS=:; f=a:.env; cat $f",
      "for f in {a,b}; do cat $f; done",
      "while read f; do cat $f; done < a",
    ]) {
      expect((await judge(c)).ask, c).toBeDefined();
    }
  }, 120_000);

  it("shell and shell(*) run a loop with variables, and safe mode runs one that only reads", async () => {
    const safe = await shell(LOOP);
    expect(safe.code, safe.stderr).toBe(0);
    for (const rule of ["shell", "shell(*)"]) {
      withRules([rule]);
      const r = await shell(LOOP, "--approval", "ask");
      expect(r.code, `${rule}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toBe("tick 1\ntick 2\n");
    }
  }, 120_000);

  it("a rule for a command covers it in a loop, value by value, and no further", async () => {
    withRules(["shell(echo tick *)"]);
    expect((await shell(LOOP, "--approval", "ask")).code).toBe(0);
    withRules(["shell(echo tick 1)"]);
    expect((await shell(LOOP, "--approval", "ask")).code).toBe(3);
    withRules([]);
    writeFileSync(path.join(ws.dir, ".env"), "KEY=1\n");
    const secret = await shell("f=.env; cat $f", "--approval", "all");
    expect(secret.code).toBe(3);
    expect(secret.stderr).toMatch(/may hold secrets/);
  }, 120_000);

  it("the hint names exactly the rules that allow it, and following it works", async () => {
    const refused = await shell(LOOP, "--approval", "ask");
    expect(refused.code).toBe(3);
    const rules = [...refused.stderr.matchAll(/tackle rules add '(.+)'/g)].map((m) => m[1]!);
    expect(rules).toEqual(["shell(echo tick 1)", "shell(echo tick 2)"]);
    const json = await shell(LOOP, "--json", "--approval", "ask");
    expect(JSON.parse(json.stdout).content).toContain('permissions.allow: ["shell(echo tick 1)", "shell(echo tick 2)"]');
    for (const rule of rules) expect((await runCli(["rules", "add", rule, "--workspace", ws.dir])).code).toBe(0);
    const allowed = await shell(LOOP, "--approval", "ask");
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toBe("tick 1\ntick 2\n");
  }, 120_000);

  it("says when no rule can allow a call", async () => {
    const r = await shell("ls $DIR");
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/No rule can allow it/);
    expect(r.stderr).not.toMatch(/tackle rules add/);
  }, 120_000);
});
