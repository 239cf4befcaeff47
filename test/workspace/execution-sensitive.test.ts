import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../src/registry/registry.js";
import { ToolRunner } from "../../src/runtime/runner.js";
import type { ApprovalRequest } from "../../src/runtime/approver.js";
import { FILE_TOOLS } from "../../src/tools/fs/index.js";
import { judgeCommand } from "../../src/tools/shell/command-policy.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { codeNames, executionSensitiveName, executionSensitiveReason } from "../../src/workspace/protected.js";
import { CODE_KINDS } from "../../src/workspace/code-kinds.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
let asked: ApprovalRequest[];
let runner: ToolRunner;

beforeEach(() => {
  ws = tempDir("tackle-chains-");
  mkdirSync(path.join(ws.dir, ".git", "hooks"), { recursive: true });
  writeFileSync(path.join(ws.dir, ".git", "HEAD"), "ref: refs/heads/main\n");
  mkdirSync(path.join(ws.dir, "src"));
  asked = [];
  const registry = new ToolRegistry();
  registry.registerAll(FILE_TOOLS);
  // safe mode with a generous allow rule, as a person trusting the agent with its files would set it
  runner = new ToolRunner({
    registry,
    workspace: ws.dir,
    cache: false,
    approval: "safe",
    rules: { allow: ["write_file(**)", "move_file(**)", "copy_file(**)", "create_directory(**)", "append_file(**)"] },
    approver: async (req) => {
      asked.push(req);
      return { approved: false, message: "not without a look" };
    },
  });
});
afterEach(async () => {
  await runner.close();
  ws.cleanup();
});

const write = (p: string, content = "x\n") => runner.run({ name: "write_file", args: { path: p, content } });

describe("files that make programs run need a person, at any depth", () => {
  const paths = [
    ".git/commondir",
    ".git/info/attributes",
    ".git/objects/info/alternates",
    "sub/.git",
    "sub/.git/commondir",
    "a/b/c/.git/HEAD",
    ".GIT/packed-refs",
    "bare.git/hooks/post-update",
    ".gitattributes",
    "sub/.gitattributes",
    ".gitmodules",
    "vendor/lib/.gitmodules",
    ".lfsconfig",
    "package.json",
    "packages/app/package.json",
    ".npmrc",
    "sub/.yarnrc.yml",
    ".pnpmfile.cjs",
    ".husky/pre-commit",
    ".envrc",
    "sub/.bashrc",
    ".profile",
    ".vscode/tasks.json",
    ".claude/settings.json",
    ".mcp.json",
    ".config/git/config",
    ".pre-commit-config.yaml",
    "pyproject.toml",
    ".cargo/config.toml",
    ".venv/bin/python",
    ".local/bin/git",
    ".eslintrc.json",
    "web/.prettierrc",
    ".pylintrc",
    "web/tailwind.config.ts",
    "setup.cfg",
    "pom.xml",
    "CMakeLists.txt",
    "src/App/App.csproj",
    "docker-compose.override.yml",
    ".pdbrc",
    ".Rprofile",
    ".zed/settings.json",
    ".tool-versions",
  ];
  for (const p of paths) {
    it(`write_file ${p} is asked about even under an allow rule`, async () => {
      const outcome = await write(p);
      expect(outcome.status, outcome.content).not.toBe("success");
      expect(existsSync(path.join(ws.dir, p))).toBe(false);
    });
  }

  it("git's hooks and config are refused at any depth", async () => {
    for (const p of [".git/hooks/pre-commit", "sub/.git/hooks/post-checkout", "x/y/.git/config", "sub/.git/config.worktree"]) {
      const outcome = await write(p, "#!/bin/sh\ntouch /tmp/pwned\n");
      expect(outcome.status, p).toBe("error");
      expect(outcome.error?.code, p).toBe("PERMISSION_DENIED");
      expect(asked.map((a) => a.args.path)).not.toContain(p);
    }
  });

  it("a rule that names the file lifts the question; a catch-all one does not", async () => {
    const registry = new ToolRegistry();
    registry.registerAll(FILE_TOOLS);
    const named = new ToolRunner({
      registry,
      workspace: ws.dir,
      cache: false,
      approval: "safe",
      rules: { allow: ["write_file(**)", "write_file(packages/*/package.json)"] },
    });
    try {
      expect((await named.run({ name: "write_file", args: { path: "packages/app/package.json", content: "{}" } })).status).toBe("success");
      expect((await named.run({ name: "write_file", args: { path: "packages/app/.npmrc", content: "x" } })).status).not.toBe("success");
    } finally {
      await named.close();
    }
  });

  it("ordinary files are still written without asking", async () => {
    for (const p of ["src/app.ts", "notes/git.md", "docs/package-json.md", "git/x.txt", ".github/README.md", "gitx/hooks.txt"]) {
      const outcome = await write(p);
      expect(outcome.status, `${p}: ${outcome.content}`).toBe("success");
    }
    expect(asked).toHaveLength(0);
  });
});

describe("moves and copies are judged by what they carry", () => {
  it("moving .git away and back both need a person", async () => {
    const away = await runner.run({ name: "move_file", args: { from: ".git", to: "gitbak" } });
    expect(away.status).toBe("rejected");
    expect(existsSync(path.join(ws.dir, ".git", "HEAD"))).toBe(true);
    // had the person agreed: a look-alike folder carrying hooks moved into place
    mkdirSync(path.join(ws.dir, "gitbak", "hooks"), { recursive: true });
    writeFileSync(path.join(ws.dir, "gitbak", "hooks", "pre-commit"), "#!/bin/sh\n");
    const back = await runner.run({ name: "move_file", args: { from: "gitbak", to: "sub/.git" } });
    expect(back.status).toBe("rejected");
  });

  it("a folder holding a repository, a manifest or attributes asks to be moved or copied", async () => {
    for (const inner of [".git/HEAD", "deep/er/package.json", "x/.gitattributes", ".envrc"]) {
      const folder = `tmpl-${inner.replace(/[^a-z]/gi, "")}`;
      mkdirSync(path.join(ws.dir, folder, path.dirname(inner)), { recursive: true });
      writeFileSync(path.join(ws.dir, folder, inner), "x\n");
      const moved = await runner.run({ name: "move_file", args: { from: folder, to: `moved-${folder}` } });
      expect(moved.status, inner).toBe("rejected");
      const copied = await runner.run({ name: "copy_file", args: { source: folder, dest: `copy-${folder}`, recursive: true } });
      expect(copied.status, inner).toBe("rejected");
    }
  });

  it("a folder that becomes a bare repository's hooks by landing there asks", async () => {
    mkdirSync(path.join(ws.dir, "repo.git"));
    mkdirSync(path.join(ws.dir, "plain", "hooks"), { recursive: true });
    writeFileSync(path.join(ws.dir, "plain", "hooks", "update"), "#!/bin/sh\n");
    mkdirSync(path.join(ws.dir, "plain2"));
    writeFileSync(path.join(ws.dir, "plain2", "post-update"), "#!/bin/sh\n");
    const moved = await runner.run({ name: "move_file", args: { from: "plain2", to: "repo.git/hooks" } });
    expect(moved.status).toBe("rejected");
  });

  it("plain folders move without asking", async () => {
    mkdirSync(path.join(ws.dir, "plain", "a"), { recursive: true });
    writeFileSync(path.join(ws.dir, "plain", "a", "x.ts"), "x\n");
    const moved = await runner.run({ name: "move_file", args: { from: "plain", to: "renamed" } });
    expect(moved.status, moved.content).toBe("success");
  });
});

describe("the shell asks before writing or moving such files", () => {
  const workspace = () => Workspace.open(ws.dir);
  const cases = [
    "echo '* filter=x' > .gitattributes",
    "echo '[filter \"x\"]' >> sub/.git/config",
    "printf 'gitdir: ../evil' > sub/.git",
    "echo ../../evil > .git/commondir",
    "cp -r tmpl dst",
    "mv gitbak .git",
    "tee package.json < /dev/null",
    "ln -s ../hooks .git/hooks2",
  ];
  for (const command of cases) {
    it(`asks: ${command}`, async () => {
      mkdirSync(path.join(ws.dir, "tmpl", ".git"), { recursive: true });
      const j = await judgeCommand(command, ws.dir, workspace());
      expect(j.deny ?? j.ask, JSON.stringify(j)).toBeTruthy();
    });
  }
});

describe("executionSensitiveReason", () => {
  it("explains in words the model and a person understand", () => {
    expect(executionSensitiveReason("sub/.git/commondir")).toMatch(/git repository/);
    expect(executionSensitiveReason("app/package.json")).toMatch(/package manager/);
    expect(executionSensitiveReason(".gitattributes")).toMatch(/git run programs/);
    expect(executionSensitiveReason(".envrc")).toMatch(/opens a shell/);
    expect(executionSensitiveReason(".vscode/tasks.json")).toMatch(/editor.*another agent/);
    expect(executionSensitiveReason("src/index.ts")).toBeUndefined();
  });
});

describe("the kinds of code, as data", () => {
  for (const kind of CODE_KINDS) {
    it(`${kind.why}: its examples match, its counter-examples do not`, () => {
      for (const p of kind.examples) expect(executionSensitiveReason(p), p).toBe(`${p} ${kind.why}`);
      for (const p of kind.counterExamples) expect(executionSensitiveReason(p), p).toBeUndefined();
    });
  }

  it("a rule lifts the question only by the fixed name the kind gives", () => {
    expect(executionSensitiveName("a/.vscode/tasks.json")).toBe(".vscode/tasks.json");
    expect(executionSensitiveName(".config/git/config")).toBe(".config/git");
    expect(executionSensitiveName("node_modules/.bin/pylsp")).toBe("node_modules/.bin");
    expect(executionSensitiveName("x/bare.git/hooks/post-update")).toBe("bare.git");
    expect(executionSensitiveName("lib/rules.mk")).toBe("rules.mk");
    expect(executionSensitiveName("packages/app/package.json")).toBe("package.json");
  });

  it("the shell's sandbox watches each fixed name but git's own files, which it protects itself", () => {
    expect(codeNames()).toEqual(expect.arrayContaining(["Makefile", ".bashrc", "node_modules/.bin", ".vscode/tasks.json", ".config/git"]));
    expect(codeNames()).not.toContain(".git");
    expect(codeNames().some((n) => /[*?]/.test(n))).toBe(false);
  });
});
