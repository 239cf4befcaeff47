import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { codeEntries, watchNewFiles, type CodeEntries } from "../../../src/tools/shell/new-file-guard.js";
import { realBuildCacheDir } from "../../../src/workspace/own-folders.js";
import { tempDir } from "../../support/tools.js";

const named = (e: CodeEntries) => [...e.existing.keys(), ...e.missing];

describe("the files that are code to a shell command", () => {
  it("hold the build's code cache when the workspace holds it, and not when it lies outside (it is not the command's to move aside)", () => {
    const built = realBuildCacheDir();
    const holding = path.dirname(built);
    expect(named(codeEntries(holding, holding, []))).toContain(built);
    const ws = tempDir();
    try {
      writeFileSync(path.join(ws.dir, "package.json"), "{}");
      const entries = codeEntries(ws.dir, ws.dir, []);
      expect(named(entries)).not.toContain(built);
      expect([...entries.existing.keys()]).toEqual([path.join(ws.dir, "package.json")]);
      expect(named(entries).every((p) => p.startsWith(`${ws.dir}${path.sep}`))).toBe(true);
    } finally {
      ws.cleanup();
    }
  });

  it("are found in any case at the top and down to the command's folder, and below a folder that holds them", () => {
    const ws = tempDir();
    try {
      mkdirSync(path.join(ws.dir, "a", "b", ".vscode"), { recursive: true });
      mkdirSync(path.join(ws.dir, "other"));
      for (const f of ["MAKEFILE", "a/.bashrc", "a/b/.vscode/settings.json", "other/Makefile"]) writeFileSync(path.join(ws.dir, f), "x");
      const entries = codeEntries(ws.dir, path.join(ws.dir, "a", "b"), [path.join(ws.dir, "tools/server.mjs")]);
      expect([...entries.existing.keys()].map((p) => path.relative(ws.dir, p)).sort()).toEqual([
        "MAKEFILE",
        "a/.bashrc",
        "a/b/.vscode/settings.json",
      ]);
      expect(entries.missing.map((p) => path.relative(ws.dir, p))).toEqual(
        expect.arrayContaining(["a/b/.vscode/tasks.json", "a/b/.vscode/mcp.json", "tools/server.mjs"]),
      );
      expect([...entries.folders.keys()].map((p) => path.relative(ws.dir, p))).toEqual(["a/b", "a", ""]);
      // No repository there yet: one a command makes is watched for.
      expect(entries.missing).toContain(path.join(ws.dir, ".git"));
    } finally {
      ws.cleanup();
    }
  });

  it("a file where a folder of theirs should be is nothing to watch, not an error", () => {
    const ws = tempDir();
    try {
      writeFileSync(path.join(ws.dir, ".vscode"), "a file");
      writeFileSync(path.join(ws.dir, ".git"), "gitdir: /nowhere\n");
      mkdirSync(path.join(ws.dir, "sub"));
      writeFileSync(path.join(ws.dir, "sub", ".git"), "gitdir: /nowhere\n");
      const entries = codeEntries(ws.dir, path.join(ws.dir, "sub"), []);
      expect(entries.existing.size).toBe(0);
      expect(entries.missing).toEqual(
        expect.arrayContaining([path.join(ws.dir, ".vscode", "tasks.json"), path.join(ws.dir, "sub", ".git", "hooks")]),
      );
    } finally {
      ws.cleanup();
    }
  });

  it("in a folder too full to read, are asked after by name, and one a command makes is still moved aside", async () => {
    const ws = tempDir();
    try {
      // Long names: every file system then reports the folder as large, whatever it counts.
      for (let i = 0; i < 5_001; i++) writeFileSync(path.join(ws.dir, `a-file-with-a-rather-long-name-number-${i}`), "");
      writeFileSync(path.join(ws.dir, "Makefile"), "x");
      const entries = codeEntries(ws.dir, ws.dir, []);
      expect(entries.folders.size).toBe(0);
      expect([...entries.existing.keys()]).toEqual([path.join(ws.dir, "Makefile")]);
      expect(entries.missing).toEqual(expect.arrayContaining([path.join(ws.dir, ".zlogin"), path.join(ws.dir, ".git")]));
      const after = watchNewFiles(ws.dir, { config: [], code: entries });
      writeFileSync(path.join(ws.dir, ".zlogin"), "x");
      expect(await after()).toMatch(/\.zlogin → \.zlogin\.refused/);
    } finally {
      ws.cleanup();
    }
  });

  it("a person's editor saving one while a long job runs is theirs; one put back under a renamed folder is not", async () => {
    const ws = tempDir();
    try {
      mkdirSync(path.join(ws.dir, ".vscode"));
      writeFileSync(path.join(ws.dir, ".vscode", "settings.json"), "{}");
      writeFileSync(path.join(ws.dir, "Makefile"), "all:\n");
      const config = [path.join(ws.dir, "tackle.config.json")];
      writeFileSync(config[0]!, "{}");
      const after = watchNewFiles(ws.dir, { config, code: codeEntries(ws.dir, ws.dir, []) });
      // Saved as editors save: a new file renamed over the old one.
      for (const f of [".vscode/settings.json", "Makefile", "tackle.config.json"]) {
        writeFileSync(path.join(ws.dir, `${f}.tmp`), "{ }");
        renameSync(path.join(ws.dir, `${f}.tmp`), path.join(ws.dir, f));
      }
      expect(await after()).toBeUndefined();
      const again = watchNewFiles(ws.dir, { config, code: codeEntries(ws.dir, ws.dir, []) });
      renameSync(path.join(ws.dir, ".vscode"), path.join(ws.dir, "vscode-old"));
      mkdirSync(path.join(ws.dir, ".vscode"));
      writeFileSync(path.join(ws.dir, ".vscode", "settings.json"), "{}");
      expect(await again()).toMatch(/\.vscode\/settings\.json → \.vscode\/settings\.json\.refused/);
    } finally {
      ws.cleanup();
    }
  });
});
