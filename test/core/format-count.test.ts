import { describe, expect, it } from "vitest";
import { formatCount } from "../../src/core/format-count.js";

describe("formatCount", () => {
  it("writes what toLocaleString('en-US') writes for counts", () => {
    for (const n of [0, 7, 999, 1000, 1001, 12_345, 999_999, 1_000_000, 123_456_789, 2 ** 53 - 1, -1, -1234, -1_000_000]) {
      expect(formatCount(n)).toBe(n.toLocaleString("en-US"));
    }
  });

  it("keeps a fraction as it is and leaves other numbers alone", () => {
    expect(formatCount(1234.5)).toBe("1,234.5");
    expect(formatCount(NaN)).toBe("NaN");
    expect(formatCount(Infinity)).toBe("Infinity");
    expect(formatCount(1e21)).toBe("1e+21");
  });
});
