import { writeFileSync, mkdirSync, openSync, writeSync, closeSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import JSZip from "jszip";
import iconv from "iconv-lite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFileTool, DEFAULT_READ_LINES, MAX_LINE_CHARS } from "../../../src/tools/fs/read-file.js";
import { outsideRepositoryHint } from "../../../src/tools/fs/read-path.js";
import { makeRunner, makeSandbox, type Sandbox } from "./helpers.js";
import { failure } from "../../support/tools.js";

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

const read = (args: Record<string, unknown>) => readFileTool.execute(args as never, sb.ctx);
const lines = (n: number, prefix = "line") => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join("\n") + "\n";

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
  "hex",
);

describe("read_file", () => {
  it("returns text with cat -n style line numbers and structured content, size and modified", async () => {
    writeFileSync(path.join(sb.ws, "a.txt"), "alpha\nbeta\n");
    const r = await read({ path: "a.txt" });
    expect(r.content).toBe("     1\talpha\n     2\tbeta");
    expect(r.structured).toMatchObject({ content: "alpha\nbeta", size: 11, path: "a.txt", totalLines: 2, hasMore: false });
    expect(new Date((r.structured as { modified: string }).modified).toString()).not.toBe("Invalid Date");
  });

  it("reads a file named by a file URI, as a language server writes it", async () => {
    mkdirSync(path.join(sb.ws, "src dir"));
    writeFileSync(path.join(sb.ws, "src dir", "a.ts"), "export {};\n");
    const r = await read({ path: pathToFileURL(path.join(sb.ws, "src dir", "a.ts")).href });
    expect(r.content).toBe("     1\texport {};");
    expect(r.structured).toMatchObject({ path: "src dir/a.ts" });
  });

  it("gives every one of many calls at once its own file, small and large, text and image", async () => {
    // Reads land in one buffer kept between calls: no call may see another's bytes.
    const files = Array.from({ length: 24 }, (_, i) => {
      const name = `f${i}.${i % 6 === 5 ? "png" : "txt"}`;
      // Up to 2,000 lines and well under the size cap, except one file too large to read whole.
      const body =
        i % 6 === 5 ? PNG : Buffer.from(i === 7 ? lines(20_000, "x".repeat(30)) : lines(1 + ((i * 997) % 1999), `file ${i} line`));
      writeFileSync(path.join(sb.ws, name), body);
      return { name, body };
    });
    // Growing, shrinking and growing again, then all at once.
    const order = [...files, ...[...files].reverse()];
    const results = await Promise.all(order.map((f) => read({ path: f.name })));
    results.forEach((r, i) => {
      const f = order[i]!;
      if (f.name.endsWith(".png")) expect(r.blocks?.[0], f.name).toMatchObject({ type: "image", data: PNG.toString("base64") });
      else {
        const { content, endLine } = r.structured as { content: string; endLine: number };
        expect(content, f.name).toBe(f.body.toString().split("\n").slice(0, endLine).join("\n"));
        expect(endLine, f.name).toBeGreaterThan(f.name === "f7.txt" ? 100 : Math.min(f.body.toString().split("\n").length - 2, 1999));
      }
    });
  });

  it("reads a window with offset and limit and says how to read on", async () => {
    writeFileSync(path.join(sb.ws, "many.txt"), lines(50));
    const r = await read({ path: "many.txt", offset: 10, limit: 5 });
    expect(r.content.split("\n").slice(0, 5)).toEqual([
      "    10\tline 10",
      "    11\tline 11",
      "    12\tline 12",
      "    13\tline 13",
      "    14\tline 14",
    ]);
    expect(r.content).toContain("Showing lines 10–14 of 50");
    expect(r.content).toContain("offset 15");
    expect(r.structured).toMatchObject({ startLine: 10, endLine: 14, nextOffset: 15, hasMore: true });
  });

  it(`returns ${DEFAULT_READ_LINES} lines by default and gives the next offset`, async () => {
    writeFileSync(path.join(sb.ws, "long.txt"), lines(2500));
    const r = await read({ path: "long.txt" });
    expect(r.structured).toMatchObject({ startLine: 1, endLine: 2000, nextOffset: 2001, totalLines: 2500 });
    expect(r.content).toContain("read on with offset 2001");
  });

  it("treats offset 0 as 1 and reports the end of file on the last window", async () => {
    writeFileSync(path.join(sb.ws, "f.txt"), lines(5));
    expect((await read({ path: "f.txt", offset: 0, limit: 1 })).content).toContain("     1\tline 1");
    const end = await read({ path: "f.txt", offset: 4 });
    expect(end.content).toContain("end of file");
    expect(end.structured).toMatchObject({ hasMore: false, endLine: 5 });
  });

  it("refuses an offset past the end, naming the line count", async () => {
    writeFileSync(path.join(sb.ws, "f.txt"), lines(5));
    const err = await failure(read({ path: "f.txt", offset: 9 }));
    expect(err.code).toBe("INVALID_ARGS");
    expect(err.message).toContain("has 5 lines");
  });

  it("reads from the end with a negative offset (small file: ordinary line numbers)", async () => {
    writeFileSync(path.join(sb.ws, "f.txt"), lines(100));
    const r = await read({ path: "f.txt", offset: -3 });
    expect(r.content.split("\n").slice(0, 3)).toEqual(["    98\tline 98", "    99\tline 99", "   100\tline 100"]);
    const mid = await read({ path: "f.txt", offset: -10, limit: 2 });
    expect(mid.structured).toMatchObject({ startLine: 91, endLine: 92, nextOffset: 93 });
    const beyond = await read({ path: "f.txt", offset: -500, limit: 2 });
    expect(beyond.structured).toMatchObject({ startLine: 1, endLine: 2 });
  });

  it("reads the tail of a file too large to count, numbering from the end", async () => {
    const file = path.join(sb.ws, "big.log");
    const fd = openSync(file, "w");
    const block = Buffer.from(lines(10_000, "x".repeat(40)));
    let written = 0;
    while (written < 34 * 1024 * 1024) written += writeSync(fd, block);
    writeSync(fd, "second to last\nthe very last line\n");
    closeSync(fd);
    const r = await read({ path: "big.log", offset: -2 });
    expect(r.content).toContain("-2\tsecond to last");
    expect(r.content).toContain("-1\tthe very last line");
    expect(r.content).toContain("Earlier lines: offset -4, limit 2");
    const earlier = await read({ path: "big.log", offset: -4, limit: 2 });
    expect(earlier.structured).toMatchObject({ startLine: -4, endLine: -3, nextOffset: -2 });
    expect(earlier.content).toContain("Later lines: offset -2");
    // A window near the start of the same file streams and stops early.
    const head = await read({ path: "big.log", offset: 3, limit: 1 });
    expect(head.content).toContain(`     3\t${"x".repeat(40)} 3`);
    expect(head.structured).toMatchObject({ hasMore: true, nextOffset: 4 });
  });

  it(`cuts lines longer than ${MAX_LINE_CHARS} characters with a notice`, async () => {
    writeFileSync(path.join(sb.ws, "wide.txt"), `short\n${"y".repeat(5000)}\nend\n`);
    const r = await read({ path: "wide.txt" });
    const second = r.content.split("\n")[1]!;
    expect(second.startsWith(`     2\t${"y".repeat(MAX_LINE_CHARS)} …`)).toBe(true);
    expect(second).toContain("5,000 characters");
    expect(r.content).toContain("     3\tend");
  });

  it("keeps memory bounded on a huge line without a newline", async () => {
    writeFileSync(path.join(sb.ws, "one.txt"), "z".repeat(8 * 1024 * 1024));
    const r = await read({ path: "one.txt" });
    expect(r.content.length).toBeLessThan(3000);
    expect(r.content).toContain("line cut");
  });

  it("stops a window at the character budget and gives the exact next offset", async () => {
    writeFileSync(path.join(sb.ws, "dense.txt"), lines(200, "w".repeat(1500)));
    const r = await read({ path: "dense.txt" });
    const s = r.structured as { endLine: number; nextOffset: number };
    expect(r.content.length).toBeLessThan(70_000);
    expect(s.nextOffset).toBe(s.endLine + 1);
    expect(r.content).toContain(`offset ${s.nextOffset}`);
    const next = await read({ path: "dense.txt", offset: s.nextOffset, limit: 1 });
    expect(next.content).toContain(`${s.nextOffset}\t${"w".repeat(1500)} ${s.nextOffset}`);
  });

  it("drops carriage returns and a UTF-8 byte-order mark from what is shown", async () => {
    writeFileSync(path.join(sb.ws, "win.txt"), "\uFEFFone\r\ntwo\r\n");
    const r = await read({ path: "win.txt" });
    expect(r.content).toBe("     1\tone\n     2\ttwo");
  });

  it("says an empty file is empty", async () => {
    writeFileSync(path.join(sb.ws, "empty.txt"), "");
    expect((await read({ path: "empty.txt" })).content).toContain("is empty");
  });

  it("returns the raw bytes with encoding base64", async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 10, 13]);
    writeFileSync(path.join(sb.ws, "b.bin"), bytes);
    const r = await read({ path: "b.bin", encoding: "base64" });
    expect(r.content).toBe(bytes.toString("base64"));
    expect(r.structured).toMatchObject({ content: bytes.toString("base64"), size: 6, encoding: "base64" });
  });

  it("accepts utf8 and utf-8 as encodings", async () => {
    writeFileSync(path.join(sb.ws, "a.txt"), "x\n");
    expect((await read({ path: "a.txt", encoding: "utf8" })).content).toBe("     1\tx");
    expect((await read({ path: "a.txt", encoding: "utf-8" })).content).toBe("     1\tx");
  });

  it("describes binary files instead of dumping them", async () => {
    writeFileSync(path.join(sb.ws, "blob.dat"), Buffer.from([1, 2, 0, 3, 4, 0, 5]));
    const r = await read({ path: "blob.dat" });
    expect(r.content).toContain("binary file");
    expect(r.content).toContain('encoding "base64"');
    expect(r.content).not.toContain("\u0001");
    writeFileSync(path.join(sb.ws, "doc.pdf"), "%PDF-1.7\nsome text that looks ascii\n");
    expect((await read({ path: "doc.pdf" })).content).toContain("PDF document");
  });

  it("treats random high bytes as binary but Latin-1 prose as text", async () => {
    writeFileSync(path.join(sb.ws, "noise.bin"), Buffer.from(Array.from({ length: 4000 }, (_, i) => 128 + ((i * 37) % 127))));
    expect((await read({ path: "noise.bin" })).content).toContain("binary file");
    writeFileSync(path.join(sb.ws, "latin.txt"), iconv.encode("Café crème brûlée\nna\u00efve\n", "win1252"));
    const r = await read({ path: "latin.txt" });
    expect(r.content).toContain("Café crème brûlée");
    expect(r.content).toContain("windows-1252");
  });

  it("decodes UTF-16 text with a byte-order mark", async () => {
    writeFileSync(path.join(sb.ws, "u16.txt"), Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode("hello\nwörld\n", "utf-16le")]));
    const r = await read({ path: "u16.txt" });
    expect(r.content).toContain("     1\thello\n     2\twörld");
  });

  it("returns a small image as an image block", async () => {
    writeFileSync(path.join(sb.ws, "dot.png"), PNG);
    const r = await read({ path: "dot.png" });
    expect(r.blocks).toEqual([{ type: "image", data: PNG.toString("base64"), mimeType: "image/png" }]);
    expect(r.content).toContain("PNG image");
    writeFileSync(path.join(sb.ws, "pic.jpg"), Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(20)]));
    expect((await read({ path: "pic.jpg" })).blocks?.[0]).toMatchObject({ mimeType: "image/jpeg" });
    writeFileSync(path.join(sb.ws, "a.gif"), Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00", "latin1"));
    expect((await read({ path: "a.gif" })).blocks?.[0]).toMatchObject({ mimeType: "image/gif" });
    writeFileSync(
      path.join(sb.ws, "a.webp"),
      Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WEBPVP8 "), Buffer.alloc(8)]),
    );
    expect((await read({ path: "a.webp" })).blocks?.[0]).toMatchObject({ mimeType: "image/webp" });
  });

  it("describes an image too large to return", async () => {
    writeFileSync(path.join(sb.ws, "huge.png"), Buffer.concat([PNG, Buffer.alloc(6 * 1024 * 1024)]));
    const r = await read({ path: "huge.png" });
    expect(r.blocks).toBeUndefined();
    expect(r.content).toContain("larger than");
  });

  it("converts a .docx document to text", async () => {
    const zip = new JSZip();
    zip.file(
      "[Content_Types].xml",
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ' +
        'ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override ' +
        'PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    );
    zip.file(
      "_rels/.rels",
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship ' +
        'Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    );
    zip.file(
      "word/document.xml",
      '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Hello ' +
        "from Word</w:t></w:r></w:p><w:p><w:r><w:t>Second paragraph</w:t></w:r></w:p></w:body></w:document>",
    );
    writeFileSync(path.join(sb.ws, "cv.docx"), await zip.generateAsync({ type: "nodebuffer" }));
    const r = await read({ path: "cv.docx" });
    expect(r.content).toContain("Hello from Word");
    expect(r.content).toContain("Second paragraph");
    expect(r.content).toContain("converted from .docx");
    expect(r.structured).toMatchObject({ kind: "docx" });
  });

  it("describes a broken .docx rather than failing", async () => {
    writeFileSync(path.join(sb.ws, "bad.docx"), "not a zip");
    expect((await read({ path: "bad.docx" })).content).toContain("could not be converted");
  });

  it("refuses a named pipe instead of blocking on it", async () => {
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [path.join(sb.ws, "pipe")]);
    const err = await failure(read({ path: "pipe" }));
    expect(err.code).toBe("INVALID_PATH");
    expect(err.message).toContain("not a regular file");
  });

  it("refuses directories and reports missing files with the nearest names", async () => {
    mkdirSync(path.join(sb.ws, "dir"));
    writeFileSync(path.join(sb.ws, "readme.md"), "x");
    expect((await failure(read({ path: "dir" }))).code).toBe("INVALID_PATH");
    const missing = await failure(read({ path: "readme.txt" }));
    expect(missing.code).toBe("FILE_NOT_FOUND");
    expect(missing.message).toContain('"readme.md"');
    const gone = await failure(read({ path: "nope/deeper.txt" }));
    expect(gone.message).toContain("does not exist either");
  });

  it("walks up from the current directory, never beyond the workspace (spec 000)", async () => {
    mkdirSync(path.join(sb.ws, "sub", "deeper"), { recursive: true });
    writeFileSync(path.join(sb.ws, "sub", "local.txt"), "from sub\n");
    writeFileSync(path.join(sb.ws, "top.txt"), "from root\n");
    writeFileSync(path.join(sb.base, "top2.txt"), "outside\n");
    const before = process.cwd();
    process.chdir(path.join(sb.ws, "sub", "deeper"));
    try {
      expect((await read({ path: "local.txt" })).content).toContain("from sub");
      expect((await read({ path: "top.txt" })).content).toContain("from root");
      expect((await failure(read({ path: "top2.txt" }))).code).toBe("FILE_NOT_FOUND");
      expect((await failure(read({ path: "../../../top2.txt" }))).code).toBe("INVALID_PATH");
    } finally {
      process.chdir(before);
    }
  });

  it("works through the runner: auto-approved in safe mode, structured result kept", async () => {
    writeFileSync(path.join(sb.ws, "a.txt"), "one\ntwo\n");
    const runner = makeRunner(sb.ws, { approver: undefined });
    const out = await runner.run({ name: "read_file", args: { path: "a.txt", offset: 2, limit: 1 } });
    expect(out.status).toBe("success");
    expect(out.approvedBy).toBe("auto");
    expect(out.content).toBe("     2\ttwo\n[Lines 2–2 of 2; end of file.]");
    expect(out.structured).toMatchObject({ content: "two", size: 8 });
    const bad = await runner.run({ name: "read_file", args: { path: "a.txt", limit: 0 } });
    expect(bad.error?.code).toBe("INVALID_ARGS");
    const typo = await runner.run({ name: "read_file", args: { path: "a.txt", encoding: "latin1" } });
    expect(typo.error?.code).toBe("INVALID_ARGS");
    await runner.close();
  });

  it("reads a runner-spilled output from its extra root", async () => {
    writeFileSync(path.join(sb.ws, "a.txt"), "x\n");
    const runner = makeRunner(sb.ws, { maxOutputChars: 1000 });
    writeFileSync(path.join(sb.ws, "big.txt"), lines(3000));
    const out = await runner.run({ name: "read_file", args: { path: "big.txt", limit: 500 } });
    const full = out.metadata?.fullOutputPath as string;
    expect(full).toBeTruthy();
    const again = await runner.run({ name: "read_file", args: { path: full, offset: 1, limit: 1 } });
    expect(again.status).toBe("success");
    expect(again.content).toContain("line 1");
    await runner.close();
  });
});

describe("the hint about a file in the repository above the workspace", () => {
  it("names only what lies in the repository, a link as itself, never a secret", async () => {
    // base is the repository; the workspace (base/ws) is a subfolder of it.
    mkdirSync(path.join(sb.base, ".git"));
    writeFileSync(path.join(sb.base, "README.md"), "up here\n");
    writeFileSync(path.join(sb.base, ".env"), "KEY=1\n");
    symlinkSync(path.join(sb.outside, "gone.txt"), path.join(sb.base, "dangling.txt"));
    expect(outsideRepositoryHint(sb.workspace, "README.md")).toContain('"roots": [{ "path": ".." }]');
    expect((await failure(read({ path: "README.md" }))).message).toContain("has README.md, outside the workspace");
    expect(outsideRepositoryHint(sb.workspace, ".env")).toBeUndefined();
    // A link is reported as the link it is, not by whether what it points at exists.
    expect(outsideRepositoryHint(sb.workspace, "dangling.txt")).toContain("has dangling.txt");
    // Nothing outside the repository is told, however the path climbs.
    expect(outsideRepositoryHint(sb.workspace, "x/../../../etc/hostname")).toBeUndefined();
    const beside = `${sb.base}-beside.txt`;
    writeFileSync(beside, "next to the repository\n");
    try {
      expect(outsideRepositoryHint(sb.workspace, `../${path.basename(beside)}`)).toBeUndefined();
    } finally {
      rmSync(beside);
    }
  });
});
