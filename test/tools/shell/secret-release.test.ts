import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../../src/registry/registry.js";
import type { ApprovalMode } from "../../../src/runtime/policy.js";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { sandboxAvailable } from "../../../src/sandbox/sandbox.js";
import { FILE_TOOLS } from "../../../src/tools/fs/index.js";
import { createShellTools } from "../../../src/tools/shell/index.js";
import { shellSettingsFrom } from "../../../src/tools/shell/settings.js";
import { makeWorkspace } from "./helpers.js";

const sandboxed = (await sandboxAvailable()).available;
let ws: ReturnType<typeof makeWorkspace>;
const runners: ToolRunner[] = [];
beforeEach(() => (ws = makeWorkspace()));
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.close()));
  ws.cleanup();
});

/** A runner whose judgement stands alone: read-only commands are not confined, so a misjudged one would act. */
function runner(mode: ApprovalMode, allow: string[] = []): ToolRunner {
  const registry = new ToolRegistry();
  registry.registerAll([...createShellTools(shellSettingsFrom({ shell: { confineReadOnly: false } })).tools, ...FILE_TOOLS]);
  const r = new ToolRunner({ registry, workspace: ws.root, approval: mode, rules: { allow }, cache: false });
  runners.push(r);
  return r;
}

const shell = (r: ToolRunner, command: string) => r.run({ name: "shell", args: { command } });

const READS_OF_ENV = [
  "cat .env",
  "cat ./.env",
  "cat .e*",
  "cat .[e]nv",
  'cat "$PWD/.env"',
  "cat /proc/self/cwd/.env",
  "cat ~+/.env",
  "head -n 5 .env",
  "cat a.txt .env",
  'echo "$(<.env)"',
  "x=$(< .env); echo $x",
];

describe("a secret is released only by a rule that names it, never by a wildcard or mode all", () => {
  for (const allow of [["shell(cat *)", "shell(head *)", "shell(echo *)"], ["shell(*)"], ["shell"]]) {
    for (const mode of ["safe", "all"] as const) {
      it(`${allow.join(", ")} in mode ${mode}`, async () => {
        const r = runner(mode, allow);
        for (const command of READS_OF_ENV) {
          const out = await shell(r, command);
          expect(out.content, command).not.toContain("SECRET=1");
          expect(out.status, command).toBe("rejected");
        }
      });
    }
  }

  it("a rule naming the file releases it: shell(cat .env), read_file(.env), read_file(*.pem)", async () => {
    const r = runner("safe", ["shell(cat .env)", "read_file(.env)", "read_file(*.pem)"]);
    expect((await shell(r, "cat .env")).content).toContain("SECRET=1");
    expect((await r.run({ name: "read_file", args: { path: ".env" } })).content).toContain("SECRET=1");
    expect((await r.run({ name: "read_file", args: { path: "key.pem" } })).status).toBe("success");
  });

  it.skipIf(!sandboxed)("in the strict sandbox too: hidden from a command unless a rule names the file", async () => {
    const strict = (allow: string[]) => {
      const registry = new ToolRegistry();
      registry.registerAll(createShellTools(shellSettingsFrom({ shell: { sandbox: "strict" } })).tools);
      const made = new ToolRunner({ registry, workspace: ws.root, approval: "all", rules: { allow }, cache: false });
      runners.push(made);
      return made;
    };
    // The name built at run time, out of the judgement's sight: the sandbox is what hides it.
    const hidden = await shell(strict(["shell(*)"]), "f=.e; f=${f}nv; cat $f; echo done");
    expect(hidden.content).toContain("done");
    expect(hidden.content).not.toContain("SECRET=1");
    expect((await shell(strict(["shell(cat .env)"]), "cat .env")).content).toContain("SECRET=1");
  });

  it("a redirection's secret says what can release it, not a rule that could not", async () => {
    const r = runner("safe");
    const wrote = await shell(r, "echo X=1 > .env");
    expect(wrote.content).toContain("no rule can allow a redirection to or from it");
    expect(wrote.content).toContain('permissions.allow: ["write_file(.env)"]');
    expect((await shell(r, "wc -l < .env")).content).toContain('permissions.allow: ["read_file(.env)"]');
    expect((await shell(r, "cat .env")).content).toContain('permissions.allow: ["shell(cat .env)"]');
  });

  it("read_file(**) or read_file(*) does not release a secret", async () => {
    for (const allow of ["read_file(**)", "read_file(*)", "read_file(.e*)"]) {
      const out = await runner("all", [allow]).run({ name: "read_file", args: { path: ".env" } });
      expect(out.status, allow).toBe("rejected");
      expect(out.content, allow).not.toContain("SECRET=1");
    }
  });
});

describe("every way a command reads a tree is a tree read, judged against the secrets in it", () => {
  const TREE_READS = [
    "grep -d recurse SECRET .",
    "grep --directories=recurse SECRET .",
    "grep --direc=recurse SECRET .",
    "grep -drecurse SECRET .",
    "diff -rN src .",
    "diff -ruN src .",
    "diff -r --unidirectional-new-file src .",
    "git diff --no-index src .",
    "git diff --no-index -R src .",
    "git diff --no-index --text src .",
    "git diff --no-index --word-diff src .",
  ];
  for (const command of TREE_READS) {
    it(command, async () => {
      const out = await shell(runner("safe"), command);
      expect(out.status).toBe("rejected");
      expect(out.content).not.toContain("SECRET=1");
    });
  }

  it("plain reads of ordinary files stay auto-approved", async () => {
    const r = runner("safe");
    for (const command of ["diff a.txt README.md", "git diff --no-index a.txt README.md", "grep -d read alpha a.txt", "grep -r beta src"]) {
      expect((await shell(r, command)).status, command).not.toBe("rejected");
    }
  });
});

describe("commands judged read-only never write or change state", () => {
  const WRITES = [
    ["git stash show --output=F", "F"],
    ["git whatchanged --output=G", "G"],
    ["git diff-tree --output=H HEAD", "H"],
    ["git diff-index --output=I HEAD", "I"],
    ["git diff-files --output=J", "J"],
    ["git shortlog --output=K HEAD", "K"],
    ["git log --outp=L", "L"],
    ["git show --ou=M", "M"],
    ["hostname --file=N", undefined],
    ["hostname newname", undefined],
  ] as const;
  for (const [command, file] of WRITES) {
    it(command, async () => {
      const out = await shell(runner("safe"), command);
      expect(out.status).toBe("rejected");
      if (file) expect(existsSync(path.join(ws.root, file))).toBe(false);
    });
  }

  it("the environment and config files outside the workspace are not read unasked", async () => {
    const r = runner("safe");
    for (const command of [
      "jq -n env",
      'jq -n "$ENV.HOME"',
      "jq -n '$ENV'",
      "git config -f /etc/passwd --list",
      "git config --global --list",
      "git config --includes --list",
    ]) {
      expect((await shell(r, command)).status, command).toBe("rejected");
    }
    expect((await shell(r, "jq -n 1")).status).toBe("success");
  });
});
