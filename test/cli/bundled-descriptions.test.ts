import { describe, expect, it } from "vitest";
import { createBuiltinTools } from "../../src/tools/builtin-tools.js";
import { tempDir } from "../support/tools.js";
import { runCli } from "./run-cli.js";

// The bundle carries the tools' descriptions as text (scripts/bundle-cli.mjs) instead of reading
// each .txt file on every start: the command must describe every tool as the library does.
describe("the bundled command's tool descriptions", () => {
  it("are the library's, word for word", async () => {
    const dir = tempDir();
    try {
      const listed = await runCli(["tools", "--json", "--workspace", dir.dir], { timeoutMs: 120_000 });
      expect(listed.code).toBe(0);
      const bundled = new Map(
        (JSON.parse(listed.stdout) as Array<{ name: string; description: string }>).map((t) => [t.name, t.description]),
      );
      const library = createBuiltinTools({ workspace: dir.dir });
      expect(library.length).toBeGreaterThan(20);
      for (const tool of library) if (bundled.has(tool.name)) expect(bundled.get(tool.name), tool.name).toBe(tool.description);
      expect(library.filter((tool) => bundled.has(tool.name)).length).toBeGreaterThan(20);
    } finally {
      dir.cleanup();
    }
  }, 180_000);
});
