import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readOwnFile, replaceOwnFile } from "../../src/workspace/own-folders.js";
import { tempDir } from "../support/tools.js";

// What tackle keeps in its own folders (caches, tokens, the change journal) is replaced whole, privately.
let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.cleanup());

describe("replaceOwnFile", () => {
  it("replaces a file whole, 0600, and leaves no temporary behind", () => {
    const file = path.join(dir.dir, "state.json");
    writeFileSync(file, "old", { mode: 0o644 });
    replaceOwnFile(file, "new");
    expect(readFileSync(file, "utf8")).toBe("new");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir.dir)).toEqual(["state.json"]);
    expect(readOwnFile(file, 100)?.toString()).toBe("new");
  });

  it("takes over a temporary left by a dead process with this pid, and never writes through a link planted there", () => {
    const file = path.join(dir.dir, "tokens.json");
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, "half-written");
    replaceOwnFile(file, "whole");
    expect(readFileSync(file, "utf8")).toBe("whole");
    expect(existsSync(temporary)).toBe(false);

    const elsewhere = path.join(dir.dir, "elsewhere.txt");
    writeFileSync(elsewhere, "untouched");
    symlinkSync(elsewhere, temporary);
    replaceOwnFile(file, "again");
    expect(readFileSync(file, "utf8")).toBe("again");
    expect(readFileSync(elsewhere, "utf8")).toBe("untouched");
  });

  it("throws where it cannot write, leaving nothing", () => {
    const missing = path.join(dir.dir, "no-such-folder", "f.json");
    expect(() => replaceOwnFile(missing, "x")).toThrow();
    mkdirSync(path.join(dir.dir, "d"));
    expect(() => replaceOwnFile(path.join(dir.dir, "d"), "x")).toThrow();
    expect(readdirSync(dir.dir).sort()).toEqual(["d"]);
  });
});
