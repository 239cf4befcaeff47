import { describe, expect, it } from "vitest";
import { centsToUsd } from "../../../src/tools/anthropic/cents-to-usd.js";

describe("centsToUsd", () => {
  it("moves the decimal point exactly", () => {
    expect(centsToUsd("123.45")).toBe(1.2345);
    expect(centsToUsd("0.1")).toBe(0.001);
    expect(centsToUsd("5")).toBe(0.05);
    expect(centsToUsd("100")).toBe(1);
    expect(centsToUsd("-250")).toBe(-2.5);
    expect(centsToUsd(".5")).toBe(0.005);
    expect(centsToUsd(250)).toBe(2.5);
    expect(centsToUsd("12345678901234.5")).toBe(123456789012.345);
  });

  it("rejects what is not a plain decimal", () => {
    for (const bad of ["", "abc", "1e5", "1.2.3", ".", "NaN"]) expect(centsToUsd(bad)).toBeUndefined();
    expect(centsToUsd(Number.NaN)).toBeUndefined();
  });
});
