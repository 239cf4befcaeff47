import { describe, expect, it } from "vitest";
import { colourEnabled, looksLikeDiff, palette } from "../../src/cli/colour.js";

describe("colour", () => {
  it("follows the terminal, NO_COLOR and FORCE_COLOR", () => {
    expect(colourEnabled({ isTTY: true }, {})).toBe(true);
    expect(colourEnabled({ isTTY: false }, {})).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: "" })).toBe(true);
    expect(colourEnabled({ isTTY: true }, { TERM: "dumb" })).toBe(false);
    expect(colourEnabled({ isTTY: false }, { FORCE_COLOR: "1" })).toBe(true);
    expect(colourEnabled({ isTTY: true }, { FORCE_COLOR: "0" })).toBe(false);
  });

  it("colours a diff line by line, and nothing when off", () => {
    const diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same";
    expect(looksLikeDiff(diff)).toBe(true);
    expect(looksLikeDiff("plain\n-text")).toBe(false);
    const on = palette({ isTTY: true }, {}).diff(diff).split("\n");
    expect(on[3]).toBe("\u001b[31m-old\u001b[39m");
    expect(on[4]).toBe("\u001b[32m+new\u001b[39m");
    expect(on[5]).toBe(" same");
    expect(palette({ isTTY: false }, {}).diff(diff)).toBe(diff);
    expect(palette({ isTTY: false }, {}).failure("Failed")).toBe("Failed");
  });
});
