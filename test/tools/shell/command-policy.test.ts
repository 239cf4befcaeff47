import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgeCommand, type CommandJudgement } from "../../../src/tools/shell/command-policy.js";
import { commandMatches } from "../../../src/runtime/rules.js";
import type { Workspace } from "../../../src/workspace/workspace.js";
import { DISGUISES, EXPECTATIONS, RM_SPELLINGS, type Expect } from "./corpus.js";
import { makeWorkspace } from "./helpers.js";

let ws: { root: string; workspace: Workspace; cleanup: () => void };
const HOME = "/home/someone";
beforeAll(() => {
  ws = makeWorkspace();
});
afterAll(() => ws.cleanup());

const judge = (cmd: string): Promise<CommandJudgement> => judgeCommand(cmd, ws.root, ws.workspace, HOME);

function verdict(j: CommandJudgement): Expect {
  if (j.deny) return "deny";
  if (j.ask) return "ask";
  return j.readOnly ? "read" : "exec";
}

describe("the corpus: every command gets the verdict it must", () => {
  it.each(EXPECTATIONS.map(([cmd, want]) => [JSON.stringify(cmd), cmd, want] as const))("%s", async (_label, cmd, want) => {
    const j = await judge(cmd);
    expect({ cmd, verdict: verdict(j), why: j.deny ?? j.ask ?? j.notReadOnly }).toMatchObject({ cmd, verdict: want });
  });
});

/**
 * Quoted disguises take only spellings that survive being put inside quotes; env -S strings only
 * plain ones, since env has escapes of its own (`\\rm` there is a carriage return and "m").
 */
function spellingsFor(disguise: string): readonly string[] {
  if (/\benv .*(-[a-z]*S|--split-string)/.test(disguise)) return ["rm", "/bin/rm"];
  return /['"]/.test(disguise) ? ["rm", "/bin/rm", "\\rm", "r\\m"] : RM_SPELLINGS;
}

const cases = DISGUISES.flatMap((d) => spellingsFor(d).map((s) => [d.replace("{}", () => `${s} -rf build`), s] as const));

describe(`disguises: rm hidden ${cases.length} ways is always found, never read-only, always asks`, () => {
  it.each(cases.map(([cmd]) => [JSON.stringify(cmd), cmd] as const))("%s", async (_label, cmd) => {
    const j = await judge(cmd);
    expect(j.readOnly).toBe(false);
    expect(j.ask ?? j.deny).toBeTruthy();
    // A deny rule on rm matches one of its subjects, whatever the disguise.
    expect(j.subjects.some((s) => commandMatches("rm:*", s))).toBe(true);
    // An allowlist of harmless prefixes never covers every part.
    const allowed = ["ls*", "git status*", "echo*", "cat*", "true", "diff*", "find*", "x=*"];
    expect(j.subjects.every((s) => allowed.some((p) => commandMatches(p, s)))).toBe(false);
  });
});

const deadly = DISGUISES.map((d) => d.replace("{}", () => "rm -rf /"));
describe("disguises: rm -rf / is denied wherever it hides", () => {
  it.each(deadly.map((c) => [JSON.stringify(c), c] as const))("%s", async (_label, cmd) => {
    const j = await judge(cmd);
    expect(j.deny).toBeTruthy();
  });
});

describe("analysis details", () => {
  it("splits a command into every simple command", async () => {
    const j = await judge("git status; npm run test:unit && echo $(date) | tee out.txt");
    expect(j.subjects).toEqual(expect.arrayContaining(["git status", "npm run test:unit", "date", "tee out.txt"]));
  });

  it("reports a path-qualified name both ways, so an allow rule for ls does not cover ./ls", async () => {
    const j = await judge("./ls -la");
    expect(j.subjects).toEqual(["ls -la", "./ls -la"]);
  });

  it("reports assignments both ways: deny rules see the command, allow rules must cover the assignment", async () => {
    const j = await judge("NODE_ENV=test npm test");
    expect(j.subjects).toEqual(["npm test", "NODE_ENV=test npm test"]);
  });

  it("a line starting with a backslash is a new command (tree-sitter-bash reads it as arguments)", async () => {
    const j = await judge("ls\n\\rm -rf build");
    expect(j.subjects).toContain("rm -rf build");
  });

  it("undoes quoting and $'...' escapes in arguments too", async () => {
    const j = await judge("git $'\\x73tatus' \"--short\"");
    expect(j.subjects).toEqual(["git status --short"]);
    expect(j.readOnly).toBe(true);
  });

  it("git's global options do not hide the subcommand from deny rules", async () => {
    const j = await judge("git -C . --no-pager push --force origin main");
    expect(j.subjects).toContain("git push --force origin main");
    expect(j.ask).toMatch(/overwrites/);
  });

  it("reports redirections with their targets, and where each command runs", async () => {
    const j = await judge("cd src; cat x.ts 2>/dev/null > out.txt < in.txt");
    const r = j.analysis.redirections.map((x) => [x.operator, x.fd ?? "", x.target?.text, x.write, x.read]);
    expect(r).toEqual([
      [">", "2", "/dev/null", true, false],
      [">", "", "out.txt", true, false],
      ["<", "", "in.txt", false, true],
    ]);
    expect(j.analysis.commands.map((c) => c.cwd)).toEqual([ws.root, `${ws.root}/src`]);
  });

  it("labels where nested commands were found", async () => {
    const j = await judge("echo $(sudo bash -c 'timeout 5 rm x')");
    const rm = j.analysis.commands.find((c) => c.name === "rm")!;
    expect(rm.via).toEqual(["$(...)", "sudo", "bash -c", "timeout"]);
  });

  it("nesting deep enough to exhaust the stack is judged unreadable, and rm inside is still seen", async () => {
    const j = await judge("echo " + "$(".repeat(3000) + "rm x" + ")".repeat(3000));
    expect(j.readOnly).toBe(false);
    expect(j.ask).toMatch(/too deeply/);
    expect(j.subjects).toContain("rm x");
  });

  it("a parse failure is never read-only and always asks", async () => {
    const j = await judge("ls $(");
    expect(j.analysis.ok).toBe(false);
    expect(j.readOnly).toBe(false);
    expect(j.ask).toMatch(/not valid bash|could not be parsed/);
  });

  it("follows cd for later path checks", async () => {
    expect((await judge("cd src && cat x.ts")).readOnly).toBe(true);
    expect((await judge("cd / && cat etc/hostname")).readOnly).toBe(false);
  });

  it("nested shells are judged to a depth limit, then fail closed", async () => {
    let cmd = "rm -rf build";
    for (let i = 0; i < 20; i++) cmd = `bash -c ${JSON.stringify(cmd).replace(/\$/g, "\\$")}`;
    const j = await judge(cmd);
    expect(j.readOnly).toBe(false);
    expect(j.ask).toBeTruthy();
  });

  it("a symlink inside the workspace that points at a secret is not read freely", async () => {
    const { symlinkSync } = await import("node:fs");
    const path = await import("node:path");
    symlinkSync(path.join(ws.root, ".env"), path.join(ws.root, "innocent.txt"));
    const j = await judge("cat innocent.txt");
    expect(j.readOnly).toBe(false);
  });

  it("a directory symlink that leads out of the workspace is not listed freely", async () => {
    const { symlinkSync } = await import("node:fs");
    const path = await import("node:path");
    symlinkSync("/etc", path.join(ws.root, "etc-link"));
    expect((await judge("cd etc-link && ls")).readOnly).toBe(false);
    expect((await judge("ls etc-link")).readOnly).toBe(false);
    expect((await judge("cd src && ls")).readOnly).toBe(true);
  });
});
