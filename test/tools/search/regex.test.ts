import { describe, expect, it } from "vitest";
import { compilePattern } from "../../../src/tools/search/regex.js";
import { ToolError } from "../../../src/core/errors.js";

const matches = (pattern: string, line: string, ci = false) => compilePattern(pattern, ci).line.test(line);

function rejects(pattern: string): ToolError {
  try {
    compilePattern(pattern);
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error(`expected ${pattern} to be refused`);
}

describe("grep's pattern dialect (Rust regex on V8)", () => {
  it("makes \\d, \\w, \\s and \\b Unicode-aware as in Rust", () => {
    expect(matches("^\\d+$", "١٢٣")).toBe(true); // Arabic-Indic digits
    expect(matches("^\\w+$", "café")).toBe(true);
    expect(matches("\\bfoo\\b", "éfoo")).toBe(false); // é is a word character
    expect(matches("\\bfoo\\b", "(foo)")).toBe(true);
    expect(matches("a\\sb", "a\u00a0b")).toBe(true);
    expect(matches("\\Bfoo", "xfoo")).toBe(true);
  });

  it("keeps . from matching only \\n, like Rust (not \\r or U+2028)", () => {
    expect(matches("a.b", "a\rb")).toBe(true);
    expect(matches("a.b", "a\u2028b")).toBe(true);
  });

  it("accepts Rust spellings: (?i) and (?s) at the start, (?P<name>), \\x{...}, \\pL, \\p{Greek}, POSIX classes, \\A \\z", () => {
    expect(matches("(?i)hello", "HeLLo")).toBe(true);
    expect(matches("(?P<word>ab)c", "abc")).toBe(true);
    expect(matches("\\x{41}", "A")).toBe(true);
    expect(matches("^\\pL+$", "Straße")).toBe(true);
    expect(matches("\\p{Greek}", "α")).toBe(true);
    expect(matches("^[[:digit:][:upper:]]+$", "A1B2")).toBe(true);
    expect(matches("^[[:alpha:]]+$", "a1")).toBe(false);
    expect(matches("\\Afoo\\z", "foo")).toBe(true);
  });

  it("treats escaped punctuation Rust allows and lone ] and } as literals", () => {
    expect(matches("a\\#b", "a#b")).toBe(true);
    expect(matches("a\\-b", "a-b")).toBe(true);
    expect(matches("x]", "x]")).toBe(true);
    expect(matches("x}", "x}")).toBe(true);
    expect(matches("[\\-\\]]", "]")).toBe(true);
    expect(matches("[^\\n]+", "abc")).toBe(true);
  });

  it("applies caseInsensitive, also with Unicode", () => {
    expect(matches("straße", "STRASSE", true)).toBe(false); // simple case folding only, in both engines
    expect(matches("ÉCOLE", "école", true)).toBe(true);
  });

  it("marks lookaround and backreferences as JavaScript-only and still compiles them", () => {
    expect(compilePattern("foo(?=bar)").jsOnly).toBe(true);
    expect(compilePattern("(a)\\1").jsOnly).toBe(true);
    expect(compilePattern("(?<x>a)\\k<x>").jsOnly).toBe(true);
    expect(compilePattern("foo\\bbar").jsOnly).toBe(false);
    expect(compilePattern("foo(?=bar)").scan).toBeUndefined();
  });

  it("refuses what would mean different things on each backend, with a clear message", () => {
    expect(rejects("foo(").code).toBe("INVALID_ARGS");
    expect(rejects("foo(").message).toContain("escape special characters");
    expect(rejects("[abc").message).toContain("not closed");
    expect(rejects("a{").message).toMatch(/repetition/);
    expect(rejects("function f() {").code).toBe("INVALID_ARGS");
    expect(rejects("a\\nb").message).toContain("one line at a time");
    expect(rejects("a(?i)b").message).toContain("only supported at the very start");
    expect(rejects("(?x)a b").message).toContain('"x"');
    expect(rejects("[a&&b]").message).toContain("set operations");
    expect(rejects("\\q").message).toContain("unrecognised escape");
    expect(rejects("trailing\\").message).toContain("lone backslash");
    expect(rejects("").code).toBe("INVALID_ARGS");
    expect(rejects("a\0b").message).toContain("NUL");
  });
});
