import path from "node:path";
import { describe, expect, it } from "vitest";
import { codeEntries } from "../../../src/tools/shell/new-file-guard.js";
import { realBuildCacheDir } from "../../../src/workspace/own-folders.js";
import { tempDir } from "../../support/tools.js";

describe("the files that are code to a shell command", () => {
  it("hold the build's code cache when the workspace holds it, and not when it lies outside (it is not the command's to move aside)", () => {
    const built = realBuildCacheDir();
    const holding = path.dirname(built);
    expect(codeEntries(holding, holding, [])).toContain(built);
    const ws = tempDir();
    try {
      const entries = codeEntries(ws.dir, ws.dir, []);
      expect(entries).not.toContain(built);
      expect(entries).toContain(path.join(ws.dir, "package.json"));
      expect(entries.every((p) => p.startsWith(`${ws.dir}${path.sep}`))).toBe(true);
    } finally {
      ws.cleanup();
    }
  });
});
