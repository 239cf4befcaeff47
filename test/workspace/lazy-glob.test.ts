import { describe, expect, it } from "vitest";
import { lazyGlob, literalsOf } from "../../src/workspace/lazy-glob.js";

describe("lazyGlob's look for literal text first", () => {
  it("answers as picomatch does, whatever the syntax", () => {
    const cases: Array<[string[], boolean, string, boolean]> = [
      [["**/*.{js,ts}"], false, "src/a.ts", true],
      [["**/id_[rd]sa"], false, "k/id_dsa", true],
      [["**/@(a|b).txt"], false, "x/b.txt", true],
      [["!**/*.md"], false, "a.ts", true],
      [["**/Makefile"], true, "sub/MAKEFILE", true],
      [["**/Makefile"], false, "sub/makefile", false],
      [["**/.env.example"], false, "a/.env.example", true],
      [["**/.env.example"], false, "a/src.ts", false],
    ];
    for (const [patterns, nocase, path, expected] of cases) {
      expect(lazyGlob(patterns, { dot: true, nocase })(path), `${patterns.join()} ${path}`).toBe(expected);
    }
  });

  it("finds no literal text where a match need not hold the runs", () => {
    expect(literalsOf(["**/*.{js,ts}"], false)).toBeUndefined();
    expect(literalsOf(["!x"], false)).toBeUndefined();
    expect(literalsOf(["**"], false)).toBeUndefined();
    expect(literalsOf(["**/Makefile", "**/*.mk"], true)).toEqual(["makefile", ".mk"]);
    expect(literalsOf(["**/Makefile"], false)).toEqual(["Makefile"]);
  });
});
