import { writeFileSync } from "node:fs";
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
});
