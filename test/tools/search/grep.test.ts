import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGrepTool } from "../../../src/tools/search/grep.js";
import { BACKENDS, failure, makeRunner, makeSandbox, type Sandbox } from "./helpers.js";

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

describe.each(BACKENDS)("grep (%s backend)", (backend) => {
  const tool = createGrepTool({ backend });
  const grep = (args: Record<string, unknown>) => tool.execute(args as never, sb.ctx);

  it("prints file:line: text, ordered by path then line, paths relative to the workspace", async () => {
    sb.write({
      "src/b.ts": "const x = 1;\n// TODO later\nconst y = 2;\n",
      "src/a.ts": "// TODO first\nnothing\n// TODO again\n",
      "README.md": "TODO: docs\n",
    });
    const r = await grep({ pattern: "TODO" });
    expect(r.content).toBe(
      ["README.md:1: TODO: docs", "src/a.ts:1: // TODO first", "src/a.ts:3: // TODO again", "src/b.ts:2: // TODO later"].join("\n"),
    );
    expect(r.structured).toMatchObject({ totalMatches: 4, files: 3, truncated: false });
    expect(r.metadata).toMatchObject({ engine: backend });
  });

  it("searches one file or one folder given as path", async () => {
    sb.write({ "src/a.ts": "hit\n", "lib/b.ts": "hit\n" });
    expect((await grep({ pattern: "hit", path: "src" })).content).toBe("src/a.ts:1: hit");
    expect((await grep({ pattern: "hit", path: "lib/b.ts" })).content).toBe("lib/b.ts:1: hit");
    expect((await grep({ pattern: "hit", path: "./lib/../src" })).content).toBe("src/a.ts:1: hit");
  });

  it("honours .gitignore (root, nested, negation, anchored, directories), .ignore, and skips .git", async () => {
    sb.write({
      ".gitignore": "*.log\n!keep.log\n/build\nnode_modules/\n",
      "app.log": "needle\n",
      "keep.log": "needle\n",
      "build/out.js": "needle\n",
      "sub/build/out.js": "needle\n",
      "node_modules/pkg/index.js": "needle\n",
      "sub/.gitignore": "secret-*.txt\n",
      "sub/secret-1.txt": "needle\n",
      "secret-2.txt": "needle\n",
      ".ignore": "generated/\n",
      "generated/x.ts": "needle\n",
      ".git/config": "needle\n",
      ".hidden/file.txt": "needle\n",
    });
    const r = await grep({ pattern: "needle" });
    expect(r.content.split("\n").map((l) => l.split(":")[0])).toEqual([".hidden/file.txt", "keep.log", "secret-2.txt", "sub/build/out.js"]);
  });

  it("searches inside an ignored directory when it is given as the path", async () => {
    sb.write({
      ".gitignore": "vendor/\n",
      "vendor/lib/a.js": "needle\n",
      "vendor/lib/.gitignore": "skip.js\n",
      "vendor/lib/skip.js": "needle\n",
    });
    expect((await grep({ pattern: "needle" })).content).toMatch(/^No matches/);
    expect((await grep({ pattern: "needle", path: "vendor" })).content).toBe("vendor/lib/a.js:1: needle");
  });

  it("applies .gitignore files above the workspace up to the repository root", async () => {
    writeFileSync(path.join(sb.base, ".gitignore"), "*.gen\n");
    sb.write({ "a.gen": "needle\n", "b.txt": "needle\n" });
    expect((await grep({ pattern: "needle" })).content).toBe("b.txt:1: needle");
    // A repository root in the workspace stops .gitignore files above it from applying.
    mkdirSync(path.join(sb.ws, ".git"));
    expect((await grep({ pattern: "needle" })).content).toBe("a.gen:1: needle\nb.txt:1: needle");
  });

  it("skips binary files, even when the NUL byte comes late, and reads UTF-16 and BOM files", async () => {
    sb.write({
      "bin.dat": Buffer.concat([Buffer.from("needle\n"), Buffer.from([0, 1, 2]), Buffer.from("\nneedle\n")]),
      "late.dat": Buffer.concat([Buffer.from("needle\n"), Buffer.alloc(200_000, 0x61), Buffer.from("\n\0\n")]),
      "utf16.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("say needle\n", "utf16le")]),
      "bom.txt": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("needle first\n")]),
      "text.txt": "a needle\n",
    });
    const r = await grep({ pattern: "needle" });
    expect(r.content).toBe("bom.txt:1: needle first\ntext.txt:1: a needle\nutf16.txt:1: say needle");
  });

  it("searches files larger than one read block, across block boundaries, and drops one with a late NUL", async () => {
    const filler = `${"x".repeat(99)}\n`; // 100 bytes a line
    const lines = 180_000; // 18 MB: more than one 16 MB block
    const body = filler.repeat(lines);
    const big = `NEEDLE first\n${body.slice(0, 16 * 1024 * 1024 - 13 - 50)}NEEDLE across the block edge ${"y".repeat(60)}\n${body}NEEDLE last`;
    sb.write({ "big.txt": big, "bigbin.txt": `NEEDLE\n${body}\0\n` });
    const r = await grep({ pattern: "NEEDLE" });
    const out = r.content.split("\n");
    expect(out).toHaveLength(3);
    expect(out[0]).toBe("big.txt:1: NEEDLE first");
    const edgeLine = big.slice(0, big.indexOf("NEEDLE across")).split("\n").length;
    expect(out[1]).toBe(
      `big.txt:${edgeLine}: ${"x".repeat(big.slice(0, big.indexOf("NEEDLE across")).split("\n").at(-1)!.length)}NEEDLE across the block edge ${"y".repeat(60)}`,
    );
    expect(out[2]).toBe(`big.txt:${big.split("\n").length}: NEEDLE last`);
  });

  it("ignores case when asked", async () => {
    sb.write({ "a.txt": "Hello\nHELLO\nhello\nhelo\n" });
    expect((await grep({ pattern: "hello" })).content).toBe("a.txt:3: hello");
    expect((await grep({ pattern: "hello", caseInsensitive: true })).content).toBe("a.txt:1: Hello\na.txt:2: HELLO\na.txt:3: hello");
  });

  it("caps results at maxResults with a notice on how to narrow, keeping the first by path and line", async () => {
    const files: Record<string, string> = {};
    for (let f = 0; f < 12; f++)
      files[`d/f${String(f).padStart(2, "0")}.txt`] = Array.from({ length: 10 }, (_, i) => `match ${i}`).join("\n");
    sb.write(files);
    const r = await grep({ pattern: "match", maxResults: 15 });
    const lines = r.content.split("\n");
    expect(lines.slice(0, 15)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `d/f00.txt:${i + 1}: match ${i}`),
      ...Array.from({ length: 5 }, (_, i) => `d/f01.txt:${i + 1}: match ${i}`),
    ]);
    expect(r.content).toContain("Showing the first 15 of 120 matching lines in 12 files");
    expect(r.content).toContain('a glob such as "*.ts"');
    expect(r.content).toContain("raise maxResults");
    expect(r.structured).toMatchObject({ totalMatches: 120, truncated: true });
  });

  it("filters files with glob: by name at any depth, by path, with braces, and excluded with !", async () => {
    sb.write({ "a.ts": "x\n", "b.tsx": "x\n", "c.js": "x\n", "src/d.ts": "x\n", "src/deep/e.ts": "x\n", "lib/f.ts": "x\n" });
    const names = async (glob: string) => (await grep({ pattern: "x", glob })).content.split("\n").map((l) => l.split(":")[0]);
    expect(await names("*.ts")).toEqual(["a.ts", "lib/f.ts", "src/d.ts", "src/deep/e.ts"]);
    expect(await names("*.{ts,tsx}")).toEqual(["a.ts", "b.tsx", "lib/f.ts", "src/d.ts", "src/deep/e.ts"]);
    expect(await names("src/**/*.ts")).toEqual(["src/d.ts", "src/deep/e.ts"]);
    expect(await names("!*.ts")).toEqual(["b.tsx", "c.js"]);
    expect((await grep({ pattern: "x", glob: "*.ts", path: "src" })).content).toBe("src/d.ts:1: x\nsrc/deep/e.ts:1: x");
    expect((await grep({ pattern: "x", glob: "deep/*.ts", path: "src" })).content).toBe("src/deep/e.ts:1: x");
  });

  it("does not bring back ignored files through the glob filter", async () => {
    sb.write({ ".gitignore": "*.log\n", "a.log": "x\n", "b.txt": "x\n" });
    expect((await grep({ pattern: "x", glob: "*.log" })).content).toMatch(/^No matches/);
  });

  it("cuts long lines around the match and says so", async () => {
    const long = `${"a".repeat(50_000)}NEEDLE${"b".repeat(50_000)}`;
    sb.write({ "min.js": `${long}\nshort NEEDLE\n` });
    const r = await grep({ pattern: "NEEDLE" });
    const [first, second] = r.content.split("\n");
    expect(first!.length).toBeLessThan(450);
    expect(first).toContain("NEEDLE");
    expect(first).toMatch(/^min\.js:1: …a+NEEDLEb+… \[line cut: 100006 characters\]$/);
    expect(second).toBe("min.js:2: short NEEDLE");
  });

  it("cuts long lines with multi-byte text at the same place on both backends", async () => {
    const long = `${"é".repeat(1000)}NEEDLE${"ü".repeat(1000)}`;
    sb.write({ "u.txt": `${long}\n` });
    const r = await grep({ pattern: "NEEDLE" });
    expect(r.content).toContain(`…${"é".repeat(60)}NEEDLE`);
  });

  it("says so when nothing matches, with a hint about case", async () => {
    sb.write({ "a.txt": "alpha\n" });
    const r = await grep({ pattern: "Beta", glob: "*.txt" });
    expect(r.content).toBe(
      'No matches for "Beta" in . among files matching "*.txt". The search is case-sensitive; set caseInsensitive to true to ignore case.',
    );
    expect(r.isError).toBeUndefined();
  });

  it("refuses an invalid regular expression with INVALID_ARGS", async () => {
    sb.write({ "a.txt": "x\n" });
    const err = await failure(grep({ pattern: "foo(bar" }));
    expect(err.code).toBe("INVALID_ARGS");
    expect(err.message).toContain("Invalid regular expression");
  });

  it("runs lookaround and backreferences (not ripgrep syntax) on the built-in engine with the same output", async () => {
    sb.write({ "a.txt": "foobar\nfoobaz\nabab\nabcd\n" });
    const r = await grep({ pattern: "foo(?=bar)" });
    expect(r.content).toBe("a.txt:1: foobar");
    expect(r.metadata).toMatchObject({ engine: "builtin" });
    expect((await grep({ pattern: "(ab)\\1" })).content).toBe("a.txt:3: abab");
  });

  it("matches Unicode classes the same way on both engines", async () => {
    sb.write({ "u.txt": "café au lait\nnaïve\n٣ digits\nplain foo\néfoo\n" });
    expect((await grep({ pattern: "\\bfoo\\b" })).content).toBe("u.txt:4: plain foo");
    expect((await grep({ pattern: "^\\w+ au" })).content).toBe("u.txt:1: café au lait");
    expect((await grep({ pattern: "^\\d" })).content).toBe("u.txt:3: ٣ digits");
  });

  it("handles CRLF line ends, a missing final newline and empty-line patterns", async () => {
    sb.write({ "crlf.txt": "one\r\ntwo\r\n\r\nend", "plain.txt": "x\n\ny\n" });
    expect((await grep({ pattern: "two$" })).content).toBe("crlf.txt:2: two");
    expect((await grep({ pattern: "^$" })).content).toBe("crlf.txt:3: \nplain.txt:2: ");
    expect((await grep({ pattern: "end" })).content).toBe("crlf.txt:4: end");
  });

  it("is reachable through the runner with a path scope, auto-approved as a read", async () => {
    sb.write({ "a.txt": "x\n" });
    const runner = makeRunner(sb.ws, backend, { approval: "safe" });
    const outcome = await runner.run({ name: "grep", args: { pattern: "x" } });
    expect(outcome.status).toBe("success");
    expect(outcome.content).toBe("a.txt:1: x");
    await runner.close();
  });

  it("does not follow symbolic links inside the tree", async () => {
    writeFileSync(path.join(sb.outside, "secret.txt"), "needle outside\n");
    symlinkSync(sb.outside, path.join(sb.ws, "out-dir"));
    symlinkSync(path.join(sb.outside, "secret.txt"), path.join(sb.ws, "out-file.txt"));
    sb.write({ "in.txt": "needle inside\n" });
    expect((await grep({ pattern: "needle" })).content).toBe("in.txt:1: needle inside");
  });
});
