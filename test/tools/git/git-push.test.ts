import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolRunner } from "../../../src/runtime/runner.js";
import type { ApprovalRequest } from "../../../src/runtime/approver.js";
import { gitPush } from "../../../src/tools/git/git-push.js";
import { tempDir } from "../../support/tools.js";
import { useRepo } from "./helpers.js";

let base: ReturnType<typeof tempDir>;
let repo: string;
let remote: string;
const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });

function commit(file: string, message: string) {
  writeFileSync(path.join(repo, file), `${message}\n`);
  git("add", file);
  git("commit", "-qm", message);
}

/** Runs git_push in ask-for-everything mode and returns what the person was shown, rejecting the call. */
async function previewOf(args: Record<string, unknown>): Promise<string | undefined> {
  const requests: ApprovalRequest[] = [];
  const registry = new ToolRegistry();
  registry.register(gitPush);
  const runner = new ToolRunner({
    registry,
    workspace: repo,
    approval: "none",
    cache: false,
    approver: async (req) => {
      requests.push(req);
      return { approved: false, message: "not now" };
    },
  });
  const outcome = await runner.run({ name: "git_push", args });
  await runner.close();
  expect(outcome.status).toBe("rejected");
  expect(requests).toHaveLength(1);
  return requests[0]!.preview;
}

beforeEach(() => {
  base = tempDir();
  repo = path.join(base.dir, "repo");
  remote = path.join(base.dir, "remote.git");
  mkdirSync(repo);
  git("init", "-q", "-b", "main");
  git("config", "user.email", "t@example.test");
  git("config", "user.name", "Tester");
  commit("a.txt", "first");
  execFileSync("git", ["init", "-q", "--bare", remote]);
});
afterEach(() => base.cleanup());

describe("git_push preview", () => {
  it("shows the remote, the branch and every commit of a branch the remote does not have", async () => {
    git("remote", "add", "origin", remote);
    commit("b.txt", "second");
    const preview = await previewOf({});
    expect(preview).toContain("git push origin main");
    expect(preview).toContain(`remote: origin (${remote})`);
    expect(preview).toContain("branch: main (new on origin)");
    expect(preview).toMatch(/ [0-9a-f]{7,} second\n {2}[0-9a-f]{7,} first/);
  });

  it("shows only the commits past the remote-tracking branch, and says when there are none", async () => {
    git("remote", "add", "origin", remote);
    git("push", "-q", "origin", "main");
    expect(await previewOf({})).toContain("commits: none the remote lacks");
    commit("c.txt", "third");
    const preview = await previewOf({ force: true });
    expect(preview).toContain("branch: main → origin/main");
    expect(preview).toMatch(/third/);
    expect(preview).not.toMatch(/first/);
    expect(preview).toContain("git push --force-with-lease origin main");
    expect(preview).toMatch(/force: /);
  });

  it("hides credentials in the remote URL", async () => {
    git("remote", "add", "origin", "https://someone:s3cret-token@example.test/repo.git");
    const preview = await previewOf({});
    expect(preview).toContain("https://***@example.test/repo.git");
    expect(preview).not.toContain("s3cret-token");
  });

  it("says so when the remote is not configured, and never lets a name pass as an option", async () => {
    expect(await previewOf({ remote: "upstream" })).toContain("remote: upstream (no such remote configured)");
    expect(await previewOf({ remote: "--upload-pack=touch /tmp/x" })).toMatch(/Could not work out what would be pushed: Remote/);
  });
});

describe("git_push through the runner", () => {
  const t = useRepo();

  it("git_push pushes to a remote and always asks", async () => {
    const remote = path.join(t.base, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", remote]);
    t.git("remote", "add", "origin", remote);
    const out = await t.runner.run({ name: "git_push", args: {} });
    expect(out.status).toBe("success");
    expect(execFileSync("git", ["--git-dir", remote, "log", "--pretty=%s", "main"], { encoding: "utf8" }).trim()).toBe("first");
    const safe = new ToolRunner({ registry: t.runner.registry, workspace: t.repo, rules: { allow: ["git_push"] } });
    // destructive: an allow rule approves it explicitly, the mode alone never does
    expect((await safe.run({ name: "git_push", args: {} })).approvedBy).toBe("config");
    await safe.close();
  });
});
