import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { createShellTools } from "../../../src/tools/shell/index.js";
import { shellSettingsFrom } from "../../../src/tools/shell/settings.js";
import { useRepo } from "./helpers.js";

/**
 * A repository's config names programs in many places. None of them may run when tackle runs
 * git to answer a read tool or to judge a command, whoever wrote the config.
 */
describe("git that tackle runs for itself runs no program the repository names", () => {
  const t = useRepo();

  /** A script that leaves `marker` behind when anything runs it, and passes its input through. */
  function planted(name: string): { script: string; marker: string; ran: () => boolean } {
    const marker = path.join(t.base, `${name}-ran`);
    const script = path.join(t.base, `${name}.sh`);
    writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\ncat\n`);
    chmodSync(script, 0o755);
    return { script, marker, ran: () => existsSync(marker) };
  }

  it("git_status, git_diff and git_log: fsmonitor, clean/smudge/process filters, external diff, diff drivers, textconv", async () => {
    const programs = ["fsmonitor", "clean", "process", "external", "command", "textconv"].map((n) => [n, planted(n)] as const);
    const p = Object.fromEntries(programs);
    writeFileSync(path.join(t.repo, ".gitattributes"), "a.txt filter=evil diff=evil\nb.txt filter=other diff=conv\n");
    writeFileSync(path.join(t.repo, "b.txt"), "b\n");
    t.git("add", "-f", ".gitattributes");
    // Planted last: the test's own git would run them.
    t.git("config", "core.fsmonitor", p.fsmonitor!.script);
    t.git("config", "filter.evil.clean", p.clean!.script);
    t.git("config", "filter.evil.smudge", p.clean!.script);
    t.git("config", "filter.other.process", p.process!.script);
    t.git("config", "diff.external", p.external!.script);
    t.git("config", "diff.evil.command", p.command!.script);
    t.git("config", "diff.conv.textconv", p.textconv!.script);
    // Same size as before, so git must read it through the filter to know whether it changed.
    writeFileSync(path.join(t.repo, "a.txt"), "two\n");
    const later = new Date(Date.now() + 5000);
    utimesSync(path.join(t.repo, "a.txt"), later, later);
    for (const [name, args] of [
      ["git_status", {}],
      ["git_diff", {}],
      ["git_diff", { staged: true }],
      ["git_diff", { ref: "HEAD" }],
      ["git_log", {}],
    ] as const) {
      const outcome = await t.runner.run({ name, args });
      expect(outcome.status, `${name} ${outcome.content}`).toBe("success");
    }
    for (const [name, program] of programs) expect(program.ran(), name).toBe(false);
  });

  it("a bare repository written file by file under a plain folder name is never taken up: by git tools, the judgement or a read-only command", async () => {
    const fsmonitor = planted("bare-fsmonitor");
    // What a model can write file by file: a bare repository's HEAD, config, index and objects,
    // whose config gives it the folder above as a work tree.
    const plain = path.join(t.repo, "plain");
    t.git("init", "-q", "--bare", plain);
    t.git(`--git-dir=${plain}`, `--work-tree=${t.repo}`, "add", "a.txt");
    t.git(`--git-dir=${plain}`, "config", "core.bare", "false");
    t.git(`--git-dir=${plain}`, "config", "core.worktree", "..");
    t.git(`--git-dir=${plain}`, "config", "core.fsmonitor", fsmonitor.script);
    // Without the guard, git taken up there runs it: the test would see it.
    execFileSync("git", ["-c", "safe.bareRepository=all", "status"], { cwd: plain, stdio: "ignore" });
    expect(fsmonitor.ran()).toBe(true);
    rmSync(fsmonitor.marker);
    writeFileSync(path.join(t.repo, ".env"), "KEY=secret\n");
    const registry = new ToolRegistry();
    // Unconfined, so the command's own git meets the folder as the host does.
    registry.registerAll(createShellTools(shellSettingsFrom({ shell: { confineReadOnly: false } })).tools);
    const runner = new ToolRunner({ registry, workspace: t.repo, approval: "safe", cache: false });
    try {
      for (const command of ["git status", "git log -p", "git ls-files", "git diff"]) {
        await runner.run({ name: "shell", args: { command, cwd: "plain" } });
      }
    } finally {
      await runner.close();
    }
    expect(fsmonitor.ran()).toBe(false);
  });

  it("git_commit still runs the repository's own hooks: a person approved the commit", async () => {
    const hook = planted("pre-commit");
    writeFileSync(path.join(t.repo, ".git", "hooks", "pre-commit"), `#!/bin/sh\nexec '${hook.script}' < /dev/null\n`);
    chmodSync(path.join(t.repo, ".git", "hooks", "pre-commit"), 0o755);
    writeFileSync(path.join(t.repo, "a.txt"), "two\n");
    const outcome = await t.runner.run({ name: "git_commit", args: { message: "second", all: true } });
    expect(outcome.status, outcome.content).toBe("success");
    expect(hook.ran()).toBe(true);
  });

  it.each([
    ["githooks", false],
    [".", false],
    [".git", false],
    [".githooks", true],
    [".husky/_", true],
  ])("git_commit and git_push with core.hooksPath %s: hooks run only from where no tool writes unasked", async (folder, runs) => {
    const hook = planted("hooked");
    const dir = path.join(t.repo, folder);
    mkdirSync(dir, { recursive: true });
    for (const name of ["pre-commit", "pre-push"])
      writeFileSync(
        path.join(dir, name),
        `#!/bin/sh
exec '${hook.script}' < /dev/null
`,
        { mode: 0o755 },
      );
    t.git("config", "core.hooksPath", folder);
    writeFileSync(path.join(t.repo, "a.txt"), "two\n");
    const outcome = await t.runner.run({ name: "git_commit", args: { message: "second", all: true } });
    expect(outcome.status, outcome.content).toBe("success");
    expect(hook.ran()).toBe(runs);
    if (!runs) expect(outcome.content).toMatch(/hooks folder \(core\.hooksPath\) is .*did not run/);
    else expect(outcome.content).not.toMatch(/did not run/);
    const remote = path.join(t.base, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", remote]);
    t.git("remote", "add", "origin", remote);
    rmSync(hook.marker, { force: true });
    const pushed = await t.runner.run({ name: "git_push", args: { remote: "origin", branch: "main" } });
    expect(pushed.status, pushed.content).toBe("success");
    expect(hook.ran()).toBe(runs);
  });

  it("git in the read-only sandbox (as the judgement runs it): a program no guard knows of cannot act", async (ctx) => {
    const { sandboxAvailable } = await import("../../../src/sandbox/sandbox.js");
    const { guardedGitOutput } = await import("../../../src/process/git-guard.js");
    if (!(await sandboxAvailable()).available) ctx.skip();
    writeFileSync(path.join(t.repo, ".env"), "TOKEN=s3cr3t\n");
    // Inside the repository, so the sandbox shows it: what a model could have written.
    const script = path.join(t.repo, "clean.sh");
    writeFileSync(script, `#!/bin/sh\ntouch '${t.repo}/planted-ran'\ncat '${t.repo}/.env' >&2\ncat\n`);
    chmodSync(script, 0o755);
    writeFileSync(path.join(t.repo, ".git", "info", "attributes"), "a.txt filter=evil\n");
    t.git("config", "filter.evil.clean", script);
    // Same size as before, so git must read it through the filter to know whether it changed.
    writeFileSync(path.join(t.repo, "a.txt"), "two\n");
    const later = new Date(Date.now() + 5000);
    utimesSync(path.join(t.repo, "a.txt"), later, later);
    // No guard at all, as if git had grown one more way to run a program.
    const unguarded = Promise.resolve([] as string[]);
    const { readOnlyLaunch } = await import("../../../src/sandbox/read-only.js");
    await guardedGitOutput(t.repo, ["status", "--porcelain"], unguarded, (argv, cwd) => readOnlyLaunch(argv, { root: t.repo, cwd }));
    expect(existsSync(path.join(t.repo, "planted-ran"))).toBe(false);
    // The same call on the host does run it: the case is real.
    await guardedGitOutput(t.repo, ["status", "--porcelain"], unguarded);
    expect(existsSync(path.join(t.repo, "planted-ran"))).toBe(true);
    rmSync(path.join(t.repo, "planted-ran"));
  });
});
