import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { useRepo } from "./helpers.js";

describe("git_commit", () => {
  const t = useRepo();

  it("git_commit stages files and commits, and asks for approval in safe mode", async () => {
    writeFileSync(path.join(t.repo, "c.txt"), "c\n");
    const out = await t.runner.run({ name: "git_commit", args: { message: "add c", files: ["c.txt"] } });
    expect(out.status).toBe("success");
    expect(out.content).toMatch(/Committed [0-9a-f]+: add c/);
    expect(t.git("log", "-1", "--pretty=%s").trim()).toBe("add c");
    const safe = new ToolRunner({ registry: t.runner.registry, workspace: t.repo });
    expect((await safe.run({ name: "git_commit", args: { message: "x", all: true } })).status).toBe("rejected");
    await safe.close();
  });

  it("a folder or every tracked change that would take a secret into the history is refused; an ignored one is not taken", async () => {
    mkdirSync(path.join(t.repo, "app"));
    writeFileSync(path.join(t.repo, "app", "main.py"), "print(1)\n");
    writeFileSync(path.join(t.repo, "app", ".env"), "SECRET=1\n");
    for (const files of [["."], ["app"]]) {
      const out = await t.runner.run({ name: "git_commit", args: { message: "all of it", files } });
      expect(out.status, files.join()).toBe("error");
      expect(out.content).toMatch(/would take app\/\.env, which may hold secrets/);
    }
    // Named as patterns, they are file names that match nothing: git stages no file of theirs.
    for (const pattern of ["*", "app/.e*", ":(glob)**"]) {
      const out = await t.runner.run({ name: "git_commit", args: { message: "all of it", files: [pattern] } });
      expect(out.status, pattern).toBe("error");
      expect(out.content, pattern).toMatch(/did not match any files/);
    }
    expect(t.git("status", "--porcelain")).not.toMatch(/^A/m);
    expect(t.git("log", "--oneline").trim().split("\n")).toHaveLength(1);
    // Ignored, it is not what `git add .` stages: the commit goes ahead without it.
    writeFileSync(path.join(t.repo, ".gitignore"), ".env\n");
    expect((await t.runner.run({ name: "git_commit", args: { message: "app", files: ["."] } })).status).toBe("success");
    expect(t.git("show", "--name-only", "--pretty=", "HEAD")).not.toContain(".env");
    // A tracked secret changed: commit -a would take the new value.
    writeFileSync(path.join(t.repo, "key.pem"), "old\n");
    t.git("add", "-f", "key.pem");
    t.git("commit", "-qm", "key");
    writeFileSync(path.join(t.repo, "key.pem"), "new\n");
    const everything = await t.runner.run({ name: "git_commit", args: { message: "x", all: true } });
    expect(everything.content).toMatch(/every tracked change.*key\.pem/);
  });
});
