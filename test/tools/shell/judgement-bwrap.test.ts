import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sandboxAvailable } from "../../../src/sandbox/sandbox.js";
import { openSession } from "../../../src/session.js";
import { tempDir } from "../../support/tools.js";

// What the shell tools run to judge a command (git, asked what it would print) runs under the
// configured bubblewrap, `sandbox.bwrap`, as the commands themselves do: not whichever is on PATH.
const status = await sandboxAvailable();

describe("the command judgement's own git runs", () => {
  it.skipIf(!status.available)("use the configured bwrap", { timeout: 60_000 }, async () => {
    const d = tempDir();
    try {
      const ws = path.join(d.dir, "w");
      mkdirSync(ws);
      const git = (...args: string[]) =>
        execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.test", ...args], { cwd: ws });
      git("init", "-q");
      writeFileSync(path.join(ws, "a.txt"), "alpha\n");
      git("add", "a.txt");
      git("commit", "-q", "-m", "first");
      const log = path.join(d.dir, "bwrap.log");
      const bwrap = path.join(d.dir, "bwrap");
      writeFileSync(bwrap, `#!/bin/sh\necho "$*" >> '${log}'\nexec '${status.bwrap}' "$@"\n`);
      chmodSync(bwrap, 0o755);
      writeFileSync(path.join(ws, "tackle.config.json"), JSON.stringify({ sandbox: { bwrap } }));
      const session = await openSession({ workspace: ws, mcp: false, approval: "all" });
      try {
        const out = await session.runner.run({ name: "shell", args: { command: "git log -p" } });
        expect(out.status).toBe("success");
        expect(out.content).toContain("alpha");
      } finally {
        await session.close();
      }
      expect(existsSync(log)).toBe(true);
      // git log --all --reflog ... asks which commits hold files that may hold secrets.
      expect(readFileSync(log, "utf8")).toMatch(/git .*log --all --reflog/);
    } finally {
      d.cleanup();
    }
  });
});
