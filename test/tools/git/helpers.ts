import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { gitStatus } from "../../../src/tools/git/git-status.js";
import { gitDiff } from "../../../src/tools/git/git-diff.js";
import { gitLog } from "../../../src/tools/git/git-log.js";
import { gitCommit } from "../../../src/tools/git/git-commit.js";
import { gitBranch } from "../../../src/tools/git/git-branch.js";
import { gitPush } from "../../../src/tools/git/git-push.js";
import { tempDir } from "../../support/tools.js";

/** What each test gets from {@link useRepo}. */
export interface TestRepo {
  /** The temporary folder holding the repository (and anything else a test makes). */
  readonly base: string;
  readonly repo: string;
  /** A runner over every git tool, in mode `all`. */
  readonly runner: ToolRunner;
  git(...args: string[]): string;
}

/** A fresh repository with one commit ("first", a.txt) for every test of the calling file or describe. */
export function useRepo(): TestRepo {
  let dir: ReturnType<typeof tempDir>;
  let repo = "";
  let runner: ToolRunner;
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });
  beforeEach(() => {
    dir = tempDir();
    repo = path.join(dir.dir, "repo");
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
    dir.cleanup();
  });
  return {
    get base() {
      return dir.dir;
    },
    get repo() {
      return repo;
    },
    get runner() {
      return runner;
    },
    git,
  };
}
