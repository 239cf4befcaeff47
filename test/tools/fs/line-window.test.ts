import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readLineWindow, readTailLines } from "../../../src/tools/fs/line-window.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "tackle-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string | Buffer) => {
  const p = path.join(dir, name);
  writeFileSync(p, content);
  return p;
};
const opts = { maxLineChars: 50, maxChars: 10_000 };

describe("readLineWindow", () => {
  it("counts lines with and without a final newline", async () => {
    expect((await readLineWindow(file("a", "x\ny\n"), { ...opts, offset: 1, limit: 10 })).totalLines).toBe(2);
    expect((await readLineWindow(file("b", "x\ny"), { ...opts, offset: 1, limit: 10 })).totalLines).toBe(2);
    expect((await readLineWindow(file("c", ""), { ...opts, offset: 1, limit: 10 })).totalLines).toBe(0);
    expect((await readLineWindow(file("d", "\n\n"), { ...opts, offset: 1, limit: 10 })).lines.map((l) => l.text)).toEqual(["", ""]);
  });

  it("stops after the window and reports more without counting, unless asked", async () => {
    const p = file("e", Array.from({ length: 100 }, (_, i) => `l${i + 1}`).join("\n"));
    const w = await readLineWindow(p, { ...opts, offset: 10, limit: 3 });
    expect(w.lines.map((l) => `${l.number}:${l.text}`)).toEqual(["10:l10", "11:l11", "12:l12"]);
    expect(w.hasMore).toBe(true);
    expect(w.totalLines).toBeUndefined();
    expect((await readLineWindow(p, { ...opts, offset: 10, limit: 3, countTotal: true })).totalLines).toBe(100);
    const last = await readLineWindow(p, { ...opts, offset: 99, limit: 5 });
    expect(last.lines.map((l) => l.text)).toEqual(["l99", "l100"]);
    expect(last.hasMore).toBe(false);
  });

  it("handles lines that span read chunks and cuts long ones, keeping the byte length", async () => {
    const long = "q".repeat(3 * 1024 * 1024);
    const w = await readLineWindow(file("f", `a\n${long}\nb\n`), { ...opts, offset: 2, limit: 2 });
    expect(w.lines[0]).toEqual({ number: 2, text: "q".repeat(50), cutFrom: long.length });
    expect(w.lines[1]).toEqual({ number: 3, text: "b" });
  });

  it("stops at maxChars, leaving the next line for the next call", async () => {
    const p = file("g", Array.from({ length: 20 }, () => "z".repeat(40)).join("\n"));
    const w = await readLineWindow(p, { maxLineChars: 100, maxChars: 200, offset: 1, limit: 20 });
    expect(w.stoppedForSize).toBe(true);
    expect(w.lines.length).toBe(4);
    expect(w.hasMore).toBe(true);
  });

  it("skips a byte-order mark and decodes windows-1252", async () => {
    const w = await readLineWindow(file("h", Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69])), { ...opts, offset: 1, limit: 1, startByte: 3 });
    expect(w.lines[0]!.text).toBe("hi");
    const l = await readLineWindow(file("i", Buffer.from("caf\xe9\n", "latin1")), {
      ...opts,
      offset: 1,
      limit: 1,
      encoding: "windows-1252",
    });
    expect(l.lines[0]!.text).toBe("café");
  });

  it("honours an aborted signal", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(readLineWindow(file("j", "a\n"), { ...opts, offset: 1, limit: 1, signal: controller.signal })).rejects.toThrow("stop");
  });
});

describe("readTailLines", () => {
  it("returns the last lines numbered from the end", async () => {
    const p = file("t", Array.from({ length: 10 }, (_, i) => `t${i + 1}`).join("\n") + "\n");
    const t = await readTailLines(p, 3, 0, opts);
    expect(t.lines.map((l) => `${l.number}:${l.text}`)).toEqual(["-3:t8", "-2:t9", "-1:t10"]);
    expect(t.reachedStart).toBe(false);
    const skip = await readTailLines(p, 4, 2, opts);
    expect(skip.lines.map((l) => `${l.number}:${l.text}`)).toEqual(["-6:t5", "-5:t6", "-4:t7", "-3:t8"]);
    const all = await readTailLines(p, 50, 0, opts);
    expect(all.lines).toHaveLength(10);
    expect(all.reachedStart).toBe(true);
  });

  it("works without a final newline, on CRLF, and on an empty file", async () => {
    expect((await readTailLines(file("u", "a\r\nb"), 1, 0, opts)).lines.map((l) => l.text)).toEqual(["b"]);
    expect((await readTailLines(file("v", "a\r\nb\r\n"), 2, 0, opts)).lines.map((l) => l.text)).toEqual(["a", "b"]);
    expect((await readTailLines(file("w", ""), 5, 0, opts)).lines).toEqual([]);
  });
});
