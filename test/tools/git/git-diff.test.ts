import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
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
});
