import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGlobTool } from "../../../src/tools/search/glob.js";
import { createGrepTool } from "../../../src/tools/search/grep.js";
import { HAS_RG, makeSandbox, type Sandbox } from "./helpers.js";

/**
 * One tree, many searches: ripgrep and the built-in engine must print exactly the same thing.
 */
let sb: Sandbox;

/** A small deterministic generator, so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = [
  "alpha",
  "Beta",
  "gamma_delta",
  "TODO",
  "fixme",
  "café",
  "naïve",
  "Ωmega",
  "x123",
  "foo()",
  "{brace}",
  "a.b",
  "tab\there",
  "  indent",
  "-e",
  "--pre=sh",
  "日本語",
  "emoji😀",
  "CamelCase",
  "snake_case",
];

beforeAll(() => {
  sb = makeSandbox();
  const next = rng(42);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const files: Record<string, string | Buffer> = {
    ".gitignore":
      "*.log\n!important.log\n/build/\ncache/\n**/tmp-*\n# comment\n\\#hash.txt\nign?re-me.txt\n[xy]-file.md\n.cache-*\nnotes\n",
    "src/.gitignore": "generated.ts\n!keep/generated.ts\n",
    "src/.ignore": "!generated.ts\nskip-me.*\n",
    "docs/.rgignore": "private/\n",
    "#hash.txt": "alpha\n",
    "important.log": "alpha TODO\n",
    "other.log": "alpha\n",
    "build/out.js": "alpha\n",
    "lib/build/out.js": "alpha build kept\n",
    "a/cache/c.txt": "alpha\n",
    "a/tmp-1.txt": "alpha\n",
    "a/b/ignore-me.txt": "alpha\n",
    "x-file.md": "alpha\n",
    "docs/y-file.md": "alpha\n",
    "docs/z-file.md": "alpha kept z\n",
    ".cache-db": "alpha\n",
    "src/.cache-x/inner.txt": "alpha\n",
    "lib/notes/n.txt": "alpha\n",
    "lib/notes.txt": "alpha notes kept\n",
    "src/generated.ts": "alpha generated\n",
    "src/skip-me.ts": "alpha\n",
    "docs/private/p.md": "alpha\n",
    "docs/public/p.md": "alpha public\n",
    ".env": "alpha=secret\n",
    "crlf.txt": "alpha\r\nBeta\r\n\r\nlast",
    "bin.dat": Buffer.from([0x61, 0x6c, 0x70, 0x68, 0x61, 0x0a, 0x00, 0x01]),
    "utf16.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("alpha in utf16\nBeta\n", "utf16le")]),
    "long.txt": `${"z".repeat(5000)}alpha${"y".repeat(5000)}\n`,
    // Repositories inside: the .gitignore above stops at them.
    "nested/.git/HEAD": "ref: refs/heads/main\n",
    "nested/kept.log": "alpha nested\n",
    "nested/skip-me.txt": "alpha\n",
    "nested/.ignore": "skip-me.*\n",
    "bare/.git/HEAD": "ref: refs/heads/main\n",
    "bare/sub/kept.log": "alpha bare\n",
  };
  for (let i = 0; i < 120; i++) {
    const dir = ["src", "src/core", "lib", "docs/public", "test", ".hidden", "a/b/c"][i % 7];
    const ext = pick(["ts", "js", "md", "txt", "py"]);
    const lines = Array.from({ length: 1 + Math.floor(next() * 30) }, () =>
      Array.from({ length: 1 + Math.floor(next() * 6) }, () => pick(WORDS)).join(" "),
    );
    files[`${dir}/file${i}.${ext}`] = lines.join(i % 5 === 0 ? "\r\n" : "\n") + (i % 3 === 0 ? "" : "\n");
  }
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(sb.ws, rel)), { recursive: true });
    writeFileSync(path.join(sb.ws, rel), content);
  }
  symlinkSync(sb.outside, path.join(sb.ws, "link-out"));
  writeFileSync(path.join(sb.outside, "o.txt"), "alpha outside\n");
});
afterAll(() => sb.cleanup());

const GREPS: Array<Record<string, unknown>> = [
  { pattern: "alpha" },
  { pattern: "alpha", maxResults: 7 },
  { pattern: "beta", caseInsensitive: true },
  { pattern: "(?i)TODO|fixme" },
  { pattern: "\\bcase\\b" },
  { pattern: "_case\\b" },
  { pattern: "^\\s+indent" },
  { pattern: "\\w+é" },
  { pattern: "\\d{3}" },
  { pattern: "foo\\(\\)" },
  { pattern: "\\{brace\\}" },
  { pattern: "a\\.b" },
  { pattern: "^$" },
  { pattern: "last$" },
  { pattern: "[[:upper:]][[:lower:]]+Case" },
  { pattern: "\\p{Han}+" },
  { pattern: "😀" },
  { pattern: "Ωmega", caseInsensitive: true },
  { pattern: "--pre=sh" },
  { pattern: "-e" },
  { pattern: "alpha", glob: "*.ts" },
  { pattern: "alpha", glob: "*.{md,txt}" },
  { pattern: "alpha", glob: "src/**/*.ts" },
  { pattern: "alpha", glob: "!*.py" },
  { pattern: "alpha", path: "src" },
  { pattern: "alpha", path: "docs" },
  { pattern: "alpha", path: "crlf.txt" },
  { pattern: "alpha", path: "build" },
  { pattern: "alpha", path: "utf16.txt" },
  { pattern: "nothing-matches-this" },
  { pattern: "gamma(?=_delta)" },
  { pattern: "\\t" },
  { pattern: "(?<w>alph)a" },
  { pattern: "a\\/b|x\\/y" },
  { pattern: "\\x{3A9}mega" },
  { pattern: ".", maxResults: 50 },
];

const GLOBS: Array<Record<string, unknown>> = [
  { pattern: "**/*" },
  { pattern: "**/*.ts" },
  { pattern: "src/**" },
  { pattern: "*.{log,txt}" },
  { pattern: "**/.*" },
  { pattern: "**/file1*.{md,py}" },
  { pattern: "**/*", path: "src" },
  { pattern: "*.md", path: "docs/public" },
  { pattern: "**/*", path: "build" },
  { pattern: "**/*.txt", maxResults: 5 },
];

describe.skipIf(!HAS_RG)("ripgrep and the built-in engine agree", () => {
  const rgGrep = createGrepTool({ backend: "ripgrep" });
  const jsGrep = createGrepTool({ backend: "builtin" });
  const rgGlob = createGlobTool({ backend: "ripgrep" });
  const jsGlob = createGlobTool({ backend: "builtin" });

  it.each(GREPS.map((a) => [JSON.stringify(a), a] as const))("grep %s", async (_, args) => {
    const [a, b] = await Promise.all([rgGrep.execute(args as never, sb.ctx), jsGrep.execute(args as never, sb.ctx)]);
    expect(b.content).toBe(a.content);
    expect(b.structured).toEqual(a.structured);
  });

  it.each(GLOBS.map((a) => [JSON.stringify(a), a] as const))("glob %s", async (_, args) => {
    const [a, b] = await Promise.all([rgGlob.execute(args as never, sb.ctx), jsGlob.execute(args as never, sb.ctx)]);
    expect(b.content).toBe(a.content);
  });

  it("finds what the tree is built to hold (the comparison is not vacuous)", async () => {
    const r = await rgGrep.execute({ pattern: "alpha", maxResults: 5000 } as never, sb.ctx);
    const files = new Set(r.content.split("\n").map((l) => l.split(":")[0]));
    for (const f of [
      "important.log",
      "lib/build/out.js",
      "src/generated.ts",
      "docs/public/p.md",
      "crlf.txt",
      "utf16.txt",
      "long.txt",
      "nested/kept.log",
      "bare/sub/kept.log",
    ]) {
      expect(files, f).toContain(f);
    }
    for (const f of [
      "other.log",
      "build/out.js",
      "a/cache/c.txt",
      "a/tmp-1.txt",
      "src/skip-me.ts",
      "docs/private/p.md",
      ".env",
      "bin.dat",
      "link-out/o.txt",
      "#hash.txt",
      "nested/skip-me.txt",
    ]) {
      expect(files, f).not.toContain(f);
    }
  });
});
