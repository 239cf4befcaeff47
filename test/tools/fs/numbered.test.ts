import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readLineWindow, type LineWindow } from "../../../src/tools/fs/line-window.js";
import { numberLines, numberText } from "../../../src/tools/fs/numbered.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "tackle-numbered-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("numberText", () => {
  it("numbers text in memory as the streaming reader's window is numbered, cut lines measured exactly", async () => {
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const pieces = ["a", "word ", "é", "😀", "\r", "", "\t", "x".repeat(30), "\uFFFD"];
    for (let round = 0; round < 400; round++) {
      const lineCount = Math.floor(random() * 12);
      const lines = Array.from({ length: lineCount }, () =>
        Array.from({ length: Math.floor(random() * 4) }, () => pieces[Math.floor(random() * pieces.length)]).join(""),
      );
      let bytes = Buffer.from(lines.join(random() < 0.3 ? "\r\n" : "\n") + (random() < 0.5 ? "\n" : ""));
      // Now and then a malformed byte, which both paths decode to U+FFFD.
      if (random() < 0.2 && bytes.length > 0) bytes = Buffer.concat([bytes.subarray(0, 1), Buffer.from([0xc3]), bytes.subarray(1)]);
      const file = path.join(dir, `w${round}`);
      writeFileSync(file, bytes);
      const text = bytes.toString("utf8");
      const options = {
        offset: 1 + Math.floor(random() * 6),
        limit: 1 + Math.floor(random() * 8),
        maxLineChars: 10 + Math.floor(random() * 60),
        maxChars: 20 + Math.floor(random() * 200),
      };
      // The stream measures a line too long to decode whole in bytes; text in memory knows its characters.
      const shown = text.split("\n").map((l) => l.replace(/\r$/, ""));
      const exact = (w: LineWindow): LineWindow => ({
        ...w,
        lines: w.lines.map((l) => (l.cutFrom === undefined ? l : { ...l, cutFrom: shown[l.number - 1]!.length })),
      });
      const streamed = await readLineWindow(file, { ...options, countTotal: true });
      const about = JSON.stringify({ bytes: bytes.toString("hex"), options });
      expect(numberText(text, options), about).toEqual(numberLines(exact(streamed), options.maxLineChars));
      // A negative offset is the window that starts as many lines before the end.
      const back = -(1 + Math.floor(random() * 6));
      const start = Math.max(1, (streamed.totalLines ?? 0) + back + 1);
      const fromEnd = await readLineWindow(file, { ...options, offset: start, countTotal: true });
      expect(numberText(text, { ...options, offset: back }), `${about} offset ${back}`).toEqual(
        numberLines(exact(fromEnd), options.maxLineChars),
      );
    }
  });

  it("aligns numbers in a column that widens only past six digits", () => {
    const text = Array.from({ length: 12 }, (_, i) => `l${i + 1}`).join("\n");
    expect(numberText(text, { offset: 9, limit: 3, maxLineChars: 10, maxChars: 1000 }).numbered).toBe(
      "     9\tl9\n    10\tl10\n    11\tl11",
    );
    const tail = numberLines(
      {
        lines: [
          { number: -1234567, text: "a" },
          { number: -1, text: "b" },
        ],
        hasMore: false,
        stoppedForSize: false,
      },
      10,
    );
    expect(tail.numbered).toBe("-1234567\ta\n      -1\tb");
  });

  it("widens the column of a text past a million lines only where the numbers need it", () => {
    const text = "x\n".repeat(1_000_001);
    const options = { limit: 3, maxLineChars: 10, maxChars: 1000 };
    expect(numberText(text, { ...options, offset: 999_998 }).numbered).toBe(" 999998\tx\n 999999\tx\n1000000\tx");
    expect(numberText(text, { ...options, offset: 5 }).numbered).toBe("     5\tx\n     6\tx\n     7\tx");
    expect(numberText(`${text}y\r\n`, { ...options, offset: -2 })).toMatchObject({ numbered: "1000001\tx\n1000002\ty", raw: "x\ny" });
  });

  it("drops carriage returns and cuts long lines with a notice in the numbered text only", () => {
    const w = numberText(`ab\r\n${"z".repeat(30)}\n`, { offset: 1, limit: 5, maxLineChars: 10, maxChars: 1000 });
    expect(w.raw).toBe(`ab\n${"z".repeat(10)}`);
    expect(w.numbered).toBe(
      `     1\tab\n     2\t${"z".repeat(10)} … [line cut: 30 characters, only the first 10 shown; use grep to find text in it]`,
    );
    expect(w).toMatchObject({ count: 2, first: 1, last: 2, totalLines: 2, hasMore: false, stoppedForSize: false });
  });

  it("answers an empty text and an offset past the end with no lines", () => {
    expect(numberText("", { offset: 1, limit: 5, maxLineChars: 10, maxChars: 100 })).toMatchObject({
      count: 0,
      totalLines: 0,
      raw: "",
      numbered: "",
    });
    expect(numberText("a\nb\n", { offset: 7, limit: 5, maxLineChars: 10, maxChars: 100 })).toMatchObject({
      count: 0,
      totalLines: 2,
      hasMore: false,
    });
  });
});
