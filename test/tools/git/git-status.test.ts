import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useRepo } from "./helpers.js";

describe("git_status", () => {
  const t = useRepo();

  it("git_status shows the branch and changes", async () => {
    writeFileSync(path.join(t.repo, "a.txt"), "two\n");
    writeFileSync(path.join(t.repo, "new.txt"), "n\n");
    const out = await t.runner.run({ name: "git_status", args: {} });
    expect(out.content).toMatch(/## main/);
    expect(out.content).toMatch(/ M a\.txt/);
    expect(out.content).toMatch(/\?\? new\.txt/);
  });
});
