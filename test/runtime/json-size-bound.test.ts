import { describe, expect, it } from "vitest";
import { jsonSizeBound } from "../../src/runtime/output-cap.js";

describe("jsonSizeBound", () => {
  const samples: unknown[] = [
    { content: "plain text\n".repeat(50), path: "a.txt", totalLines: 50, truncated: false },
    { s: '"\\\u0001\u001f\n\t'.repeat(100) },
    ["a", 1, null, true, { nested: [{ deeper: "x".repeat(300) }] }],
    "just a string",
    12345.678,
    { emoji: "😀".repeat(40), 'key with "quotes"': ["\u0000"] },
  ];

  it("never falls short of JSON.stringify's length", () => {
    for (const value of samples) {
      const bound = jsonSizeBound(value, 1_000_000);
      expect(bound).toBeGreaterThanOrEqual(JSON.stringify(value).length);
    }
  });

  it("gives up (undefined) over the budget, and for values with toJSON", () => {
    expect(jsonSizeBound({ content: "x".repeat(1000) }, 100)).toBeUndefined();
    expect(jsonSizeBound({ when: new Date(0) }, 1_000_000)).toBeUndefined();
  });
});
