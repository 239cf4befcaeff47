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
