import { describe, expect, it } from "vitest";
import { editDiff, unifiedDiff } from "../../../src/tools/fs/preview.js";
import { lineSpan } from "../../../src/tools/fs/line-span.js";

/** Applies replacements of `old` at `positions` and returns the edit's [start, endBefore, endAfter). */
function edit(before: string, old: string, replacement: string, positions: number[]) {
  let after = "";
  let last = 0;
  let endAfter = 0;
  for (const at of positions) {
    after += before.slice(last, at) + replacement;
    endAfter = after.length;
    last = at + old.length;
  }
  after += before.slice(last);
  return { after, start: positions[0]!, endBefore: positions.at(-1)! + old.length, endAfter };
}

describe("an edit's diff covers only the changed region", () => {
  it("is the same diff as the whole-file one, line numbers included", () => {
    let seed = 3;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    for (let round = 0; round < 2000; round++) {
      const lines = Array.from({ length: 1 + rand(60) }, (_, i) => `line ${i} ${"x".repeat(rand(5))}`);
      const before = lines.join("\n") + (rand(2) ? "\n" : "");
      const a = rand(before.length);
      const b = Math.min(before.length, a + 1 + rand(40));
      const old = before.slice(a, b);
      const replacement = ["", "new\n", "changed", "\nmore\nlines\n"][rand(4)]!;
      const e = edit(before, old, replacement, [a]);
      expect(editDiff("f.txt", before, e.after, e.start, e.endBefore, e.endAfter), `round ${round}`).toBe(
        unifiedDiff("f.txt", before, e.after),
      );
    }
  });

  it("covers every place of a replace_all", () => {
    let seed = 11;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    for (let round = 0; round < 500; round++) {
      const lines = Array.from({ length: 1 + rand(80) }, (_, i) => (rand(6) === 0 ? `has TOKEN ${i}` : `plain ${i}`));
      const before = lines.join("\n") + "\n";
      const positions: number[] = [];
      for (let i = before.indexOf("TOKEN"); i !== -1; i = before.indexOf("TOKEN", i + 5)) positions.push(i);
      if (positions.length === 0) continue;
      const e = edit(before, "TOKEN", ["T", "", "TWO\nLINES"][rand(3)]!, positions);
      expect(editDiff("f.txt", before, e.after, e.start, e.endBefore, e.endAfter), `round ${round}`).toBe(
        unifiedDiff("f.txt", before, e.after),
      );
    }
  });

  it("numbers a change deep in a large file from the file's start", () => {
    const before = Array.from({ length: 200_000 }, (_, i) => `row ${i}`).join("\n") + "\n";
    const at = before.indexOf("row 150000\n");
    const e = edit(before, "row 150000", "row one-hundred-fifty-thousand", [at]);
    const diff = editDiff("big.txt", before, e.after, e.start, e.endBefore, e.endAfter);
    expect(diff).toContain("@@ -149998,7 +149998,7 @@");
    expect(diff).toContain("-row 150000\n+row one-hundred-fifty-thousand\n");
  });

  it("lineSpan widens to whole lines and counts lines without splitting the text", () => {
    const text = "a\nb\nc\nd\ne\n";
    expect(lineSpan(text, 4, 5, 1, 1)).toEqual({ from: 2, to: 8, firstLine: 2 });
    expect(lineSpan(text, 4, 6, 0, 0)).toEqual({ from: 4, to: 8, firstLine: 3 });
    expect(lineSpan(text, 0, 1, 3, 0)).toEqual({ from: 0, to: 2, firstLine: 1 });
    expect(lineSpan("no newline", 3, 4, 2, 2)).toEqual({ from: 0, to: 10, firstLine: 1 });
  });
});
