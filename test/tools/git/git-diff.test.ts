import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { useRepo } from "./helpers.js";

describe("git_diff", () => {
  const t = useRepo();

  it("git_diff shows unstaged, staged and ref diffs", async () => {
    writeFileSync(path.join(t.repo, "a.txt"), "two\n");
    expect((await t.runner.run({ name: "git_diff", args: {} })).content).toMatch(/-one\n\+two/);
    expect((await t.runner.run({ name: "git_diff", args: { staged: true } })).content).toBe("No staged changes.");
    t.git("add", "a.txt");
    expect((await t.runner.run({ name: "git_diff", args: { staged: true, path: "a.txt" } })).content).toMatch(/\+two/);
  });

  it("leaves out files that may hold secrets, and names them; a path naming one needs a rule", async () => {
    mkdirSync(path.join(t.repo, "config"));
    writeFileSync(path.join(t.repo, ".env"), "KEY=hunter2-first\n");
    writeFileSync(path.join(t.repo, "config", "server.PEM"), "pem-first\n");
    t.git("add", "-f", ".env", "config/server.PEM");
    t.git("commit", "-qm", "secrets");
    writeFileSync(path.join(t.repo, ".env"), "KEY=hunter2-second\n");
    writeFileSync(path.join(t.repo, "config", "server.PEM"), "pem-second\n");
    writeFileSync(path.join(t.repo, "a.txt"), "two\n");
    for (const args of [{}, { path: "." }, { path: "config" }, { ref: "HEAD~1" }, { ref: "HEAD~1", path: "." }]) {
      const out = (await t.runner.run({ name: "git_diff", args })).content;
      expect(out, JSON.stringify(args)).not.toMatch(/hunter2|pem-/);
      expect(out, JSON.stringify(args)).toMatch(/Left out: .*(\.env|server\.PEM)/);
    }
    expect((await t.runner.run({ name: "git_diff", args: {} })).content).toMatch(/\+two/);
    const named = await t.runner.run({ name: "git_diff", args: { path: ".env" } });
    expect(named.status).toBe("rejected");
    expect(named.content).not.toContain("hunter2");
    // A rule that names the file lets it through.
    const allowed = new ToolRunner({
      registry: t.runner.registry,
      workspace: t.repo,
      approval: "all",
      cache: false,
      rules: { allow: ["git_diff(.env)"] },
    });
    try {
      expect((await allowed.run({ name: "git_diff", args: { path: ".env" } })).content).toMatch(/-KEY=hunter2-first\n\+KEY=hunter2-second/);
    } finally {
      await allowed.close();
    }
  });
});
