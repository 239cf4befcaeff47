import { isAscii } from "node:buffer";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { asciiEscaped } from "../../scripts/ascii-escaped.mjs";
import { BUNDLE_HEAD, runWithCodeCache } from "../../src/cli/code-cache.js";
import { CLI } from "../cli/run-cli.js";
import { tempDir } from "../support/tools.js";

describe("the command's bundle is ASCII, so the launcher reads it as a one-byte string", () => {
  it("as built", () => {
    expect(isAscii(readFileSync(path.join(path.dirname(CLI), "tackle.cjs")))).toBe(true);
  });

  it("already inside the function the launcher compiles, so no start copies it into one more string", () => {
    const text = readFileSync(path.join(path.dirname(CLI), "tackle.cjs"), "latin1");
    expect(text.startsWith(BUNDLE_HEAD)).toBe(true);
    expect(typeof new vm.Script(text).runInThisContext()).toBe("function");
  });

  it("the launcher refuses a file that is not such a bundle, saying so", () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = path.join(dir, "tackle.cjs");
      writeFileSync(file, "process.exitCode = 7;\n");
      expect(() => runWithCodeCache(file, ["--version"])).toThrow(/is not a bundle tackle built \(npm run build makes one\)/);
      expect(process.exitCode).toBeUndefined();
    } finally {
      cleanup();
    }
  });

  it("escaping keeps what comments and regular expressions mean, identity escapes and characters beyond the BMP included", () => {
    const source = [
      "// a comment — with a dash",
      "const bullet = /^(?:• |\\d+\\. )/.test('• item');",
      "const escaped = /\\•x/.test('•x');",
      "const doubled = /\\\\•/.test('\\\\•');",
      "const astral = /[😀]/u.test('😀') && /😀/.test('😀');",
      "module.exports = [bullet, escaped, doubled, astral];",
    ].join("\n");
    const run = (code: string) => {
      const module = { exports: [] as boolean[] };
      new Function("module", code)(module);
      return module.exports;
    };
    const ascii = asciiEscaped(source);
    expect(isAscii(Buffer.from(ascii))).toBe(true);
    expect(run(source)).toEqual([true, true, true, true]);
    expect(run(ascii)).toEqual(run(source));
  });
});
