import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../../src/core/registry.js";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { gitStatus } from "../../../src/tools/git/git-status.js";
import { gitDiff } from "../../../src/tools/git/git-diff.js";
import { gitLog } from "../../../src/tools/git/git-log.js";
import { gitCommit } from "../../../src/tools/git/git-commit.js";
import { gitBranch } from "../../../src/tools/git/git-branch.js";
import { gitPush } from "../../../src/tools/git/git-push.js";
import { tempDir } from "../../support/tools.js";
import { shellTools } from "../../../src/tools/shell/index.js";
import { silentLogger } from "../../../src/core/logger.js";

let base: ReturnType<typeof tempDir>;
let repo: string;
let runner: ToolRunner;
const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });

beforeEach(() => {
  base = tempDir();
  repo = path.join(base.dir, "repo");
  mkdirSync(repo);
  git("init", "-q", "-b", "main");
  git("config", "user.email", "t@example.test");
  git("config", "user.name", "Tester");
  writeFileSync(path.join(repo, "a.txt"), "one\n");
  git("add", "a.txt");
  git("commit", "-qm", "first");
  const registry = new ToolRegistry();
  registry.registerAll([gitStatus, gitDiff, gitLog, gitCommit, gitBranch, gitPush]);
  runner = new ToolRunner({ registry, workspace: repo, approval: "all", cache: false });
});
afterEach(async () => {
  await runner.close();
  base.cleanup();
});

describe("git tools", () => {
  it("git_status shows the branch and changes", async () => {
    writeFileSync(path.join(repo, "a.txt"), "two\n");
    writeFileSync(path.join(repo, "new.txt"), "n\n");
    const out = await runner.run({ name: "git_status", args: {} });
    expect(out.content).toMatch(/## main/);
    expect(out.content).toMatch(/ M a\.txt/);
    expect(out.content).toMatch(/\?\? new\.txt/);
  });

  it("git_diff shows unstaged, staged and ref diffs", async () => {
    writeFileSync(path.join(repo, "a.txt"), "two\n");
    expect((await runner.run({ name: "git_diff", args: {} })).content).toMatch(/-one\n\+two/);
    expect((await runner.run({ name: "git_diff", args: { staged: true } })).content).toBe("No staged changes.");
    git("add", "a.txt");
    expect((await runner.run({ name: "git_diff", args: { staged: true, path: "a.txt" } })).content).toMatch(/\+two/);
  });

  it("git_log lists commits newest first", async () => {
    writeFileSync(path.join(repo, "b.txt"), "b\n");
    git("add", "b.txt");
    git("commit", "-qm", "second");
    const out = await runner.run({ name: "git_log", args: { limit: 5 } });
    expect(out.content.split("\n")[0]).toMatch(/^[0-9a-f]{7,} \d{4}-\d\d-\d\d Tester: second$/);
    expect(out.content).toMatch(/first/);
  });

  it("git_commit stages files and commits, and asks for approval in safe mode", async () => {
    writeFileSync(path.join(repo, "c.txt"), "c\n");
    const out = await runner.run({ name: "git_commit", args: { message: "add c", files: ["c.txt"] } });
    expect(out.status).toBe("success");
    expect(out.content).toMatch(/Committed [0-9a-f]+: add c/);
    expect(git("log", "-1", "--pretty=%s").trim()).toBe("add c");
    const safe = new ToolRunner({ registry: runner.registry, workspace: repo });
    expect((await safe.run({ name: "git_commit", args: { message: "x", all: true } })).status).toBe("rejected");
    await safe.close();
  });

  it("git_branch lists without approval and creates with it", async () => {
    const safe = new ToolRunner({ registry: runner.registry, workspace: repo });
    expect((await safe.run({ name: "git_branch", args: {} })).content).toMatch(/\* main/);
    expect((await safe.run({ name: "git_branch", args: { name: "feature", create: true } })).status).toBe("rejected");
    await safe.close();
    expect((await runner.run({ name: "git_branch", args: { name: "feature", create: true, checkout: true } })).content).toMatch(/switched/);
    expect(git("rev-parse", "--abbrev-ref", "HEAD").trim()).toBe("feature");
  });

  it("git_push pushes to a remote and always asks", async () => {
    const remote = path.join(base.dir, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", remote]);
    git("remote", "add", "origin", remote);
    const out = await runner.run({ name: "git_push", args: {} });
    expect(out.status).toBe("success");
    expect(execFileSync("git", ["--git-dir", remote, "log", "--pretty=%s", "main"], { encoding: "utf8" }).trim()).toBe("first");
    const safe = new ToolRunner({ registry: runner.registry, workspace: repo, rules: { allow: ["git_push"] } });
    // destructive: an allow rule approves it explicitly, the mode alone never does
    expect((await safe.run({ name: "git_push", args: {} })).approvedBy).toBe("config");
    await safe.close();
  });

  it("refuses option injection and paths outside the workspace", async () => {
    const injected = await runner.run({ name: "git_diff", args: { ref: "--output=/tmp/pwned" } });
    expect(injected.error?.code).toBe("INVALID_ARGS");
    expect(existsSync("/tmp/pwned")).toBe(false);
    expect((await runner.run({ name: "git_branch", args: { name: "-D", create: true } })).error?.code).toBe("INVALID_ARGS");
    expect((await runner.run({ name: "git_log", args: { path: "../.." } })).error?.code).toBe("INVALID_PATH");
    expect((await runner.run({ name: "git_push", args: { remote: "--upload-pack=touch /tmp/x" } })).error?.code).toBe("INVALID_ARGS");
  });

  it("never runs a program the repository's config names for fsmonitor", async () => {
    const marker = path.join(base.dir, "fsmonitor-ran");
    writeFileSync(path.join(base.dir, "hook.sh"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    git("config", "core.fsmonitor", path.join(base.dir, "hook.sh"));
    const out = await runner.run({ name: "git_status", args: {} });
    expect(out.status).toBe("success");
    const shellRegistry = new ToolRegistry();
    shellRegistry.registerAll(await shellTools({ config: {}, env: {}, workspace: repo, logger: silentLogger }));
    const shell = new ToolRunner({ registry: shellRegistry, workspace: repo, approval: "all" });
    expect((await shell.run({ name: "shell", args: { command: "git status --short" } })).status).toBe("success");
    await shell.close();
    expect(existsSync(marker)).toBe(false);
  });

  it("says when the workspace is not a repository", async () => {
    const plain = path.join(base.dir, "plain");
    mkdirSync(plain);
    const r = new ToolRunner({ registry: runner.registry, workspace: plain });
    const out = await r.run({ name: "git_status", args: {} });
    expect(out.error?.code).toBe("EXECUTION_ERROR");
    expect(out.content).toMatch(/not a git repository/);
    await r.close();
  });
});
