import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useRepo } from "./helpers.js";

describe("git_log", () => {
  const t = useRepo();

  it("git_log lists commits newest first", async () => {
    writeFileSync(path.join(t.repo, "b.txt"), "b\n");
    t.git("add", "b.txt");
    t.git("commit", "-qm", "second");
    const out = await t.runner.run({ name: "git_log", args: { limit: 5 } });
    expect(out.content.split("\n")[0]).toMatch(/^[0-9a-f]{7,} \d{4}-\d\d-\d\d Tester: second$/);
    expect(out.content).toMatch(/first/);
  });
});
