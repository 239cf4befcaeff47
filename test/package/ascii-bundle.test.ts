import { isAscii } from "node:buffer";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { asciiEscaped } from "../../scripts/ascii-escaped.mjs";
import { CLI } from "../cli/run-cli.js";

describe("the command's bundle is ASCII, so the launcher reads it as a one-byte string", () => {
  it("as built", () => {
    expect(isAscii(readFileSync(path.join(path.dirname(CLI), "tackle.cjs")))).toBe(true);
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
