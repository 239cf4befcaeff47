import { describe, expect, it } from "vitest";
import { isValidUtf8, sniffContent } from "../../../src/tools/fs/binary.js";

describe("sniffContent", () => {
  it("knows images and common binary formats by their magic numbers", () => {
    expect(sniffContent(Buffer.from("89504e470d0a1a0a0000", "hex"))).toMatchObject({ kind: "image", mimeType: "image/png" });
    expect(sniffContent(Buffer.from([0xff, 0xd8, 0xff, 0xdb]))).toMatchObject({ kind: "image", mimeType: "image/jpeg" });
    expect(sniffContent(Buffer.from("GIF87a"))).toMatchObject({ kind: "image", mimeType: "image/gif" });
    expect(sniffContent(Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WEBP")]))).toMatchObject({
      mimeType: "image/webp",
    });
    expect(sniffContent(Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WAVE")]))).toMatchObject({ kind: "binary" });
    expect(sniffContent(Buffer.from("%PDF-1.4\n"))).toMatchObject({ kind: "binary", label: "PDF document" });
    expect(sniffContent(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1]))).toMatchObject({ label: "ELF executable" });
    expect(sniffContent(Buffer.from([0x50, 0x4b, 0x03, 0x04]))).toMatchObject({ mimeType: "application/zip" });
  });

  it("calls NUL bytes and control-character soup binary", () => {
    expect(sniffContent(Buffer.from("abc\0def")).kind).toBe("binary");
    expect(sniffContent(Buffer.from(Array.from({ length: 100 }, (_, i) => (i % 7) + 1))).kind).toBe("binary");
  });

  it("calls UTF-8, ANSI-coloured output and legacy 8-bit prose text", () => {
    expect(sniffContent(Buffer.from("héllo wörld ✓\n"))).toEqual({ kind: "text", encoding: "utf-8" });
    expect(sniffContent(Buffer.from("\x1b[31mred\x1b[0m\n")).kind).toBe("text");
    expect(sniffContent(Buffer.from("caf\xe9 cr\xe8me\n", "latin1"))).toEqual({ kind: "text", encoding: "windows-1252" });
    expect(sniffContent(Buffer.alloc(0))).toEqual({ kind: "text", encoding: "utf-8" });
  });

  it("reads byte-order marks", () => {
    expect(sniffContent(Buffer.from([0xef, 0xbb, 0xbf, 0x61]))).toEqual({ kind: "text", encoding: "utf-8", bomLength: 3 });
    expect(sniffContent(Buffer.from([0xff, 0xfe, 0x61, 0]))).toMatchObject({ encoding: "utf-16le", bomLength: 2 });
    expect(sniffContent(Buffer.from([0xfe, 0xff, 0, 0x61]))).toMatchObject({ encoding: "utf-16be" });
  });
});

describe("sniffContent's text or binary verdict", () => {
  // The rule, written out plainly: over 10% control bytes, or (not UTF-8) over 30% high bytes, is binary.
  function reference(sample: Uint8Array): string {
    let control = 0;
    let high = 0;
    for (const b of sample) {
      if (b < 0x20 && ![8, 9, 10, 12, 13, 27].includes(b)) control++;
      if (b >= 0x80) high++;
    }
    if (control / sample.length > 0.1) return "binary";
    if (isValidUtf8(sample, true)) return "text";
    return high / sample.length > 0.3 ? "binary" : "text";
  }

  it("matches the plain rule on samples near both thresholds", () => {
    let seed = 5;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let round = 0; round < 400; round++) {
      const controlShare = random() * 0.2;
      const highShare = random() * 0.5;
      const sample = Buffer.from(
        Array.from({ length: 1 + Math.floor(random() * 600) }, () => {
          const r = random();
          if (r < controlShare) return 1 + Math.floor(random() * 31);
          if (r < controlShare + highShare) return 0x80 + Math.floor(random() * 128);
          return 0x20 + Math.floor(random() * 95);
        }),
      );
      const verdict = sniffContent(sample);
      // NUL bytes and magic numbers are decided before the counts.
      if (sample.includes(0) || (verdict.label !== undefined && verdict.label !== "binary data")) continue;
      expect(verdict.kind, sample.toString("hex")).toBe(reference(sample));
      // The bytes are counted a word at a time: the same sample at every alignment.
      for (const shift of [1, 2, 3]) {
        const shifted = Buffer.concat([Buffer.alloc(shift, 0x41), sample]).subarray(shift);
        expect(sniffContent(shifted).kind, `${sample.toString("hex")} shifted by ${shift}`).toBe(verdict.kind);
      }
    }
  });
});

describe("isValidUtf8", () => {
  it("accepts a sample cut inside a multibyte character only when told it was cut", () => {
    const euro = Buffer.from("price: €");
    const cut = euro.subarray(0, euro.length - 1);
    expect(isValidUtf8(euro)).toBe(true);
    expect(isValidUtf8(cut)).toBe(false);
    expect(isValidUtf8(cut, true)).toBe(true);
    expect(isValidUtf8(Buffer.from([0x61, 0xff, 0x62]), true)).toBe(false);
  });
});
