import { describe, expect, it } from "vitest";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { useRepo } from "./helpers.js";

describe("git_branch", () => {
  const t = useRepo();

  it("git_branch lists without approval and creates with it", async () => {
    const safe = new ToolRunner({ registry: t.runner.registry, workspace: t.repo });
    expect((await safe.run({ name: "git_branch", args: {} })).content).toMatch(/\* main/);
    expect((await safe.run({ name: "git_branch", args: { name: "feature", create: true } })).status).toBe("rejected");
    await safe.close();
    expect((await t.runner.run({ name: "git_branch", args: { name: "feature", create: true, checkout: true } })).content).toMatch(
      /switched/,
    );
    expect(t.git("rev-parse", "--abbrev-ref", "HEAD").trim()).toBe("feature");
  });
});
