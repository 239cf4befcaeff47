import { describe, expect, it } from "vitest";
import { addressOf, buildRawMessage, encodeHeaderText, splitAddresses, toBase64Url } from "../../../src/tools/google/mime-message.js";

describe("mime-message", () => {
  it("splits address lists outside quotes and brackets", () => {
    expect(splitAddresses('a@x.com, "Doe, Jane" <jane@y.com>; b@z.com')).toEqual(["a@x.com", '"Doe, Jane" <jane@y.com>', "b@z.com"]);
  });

  it("accepts addresses and rejects anything with line breaks", () => {
    expect(addressOf("Jane <jane@y.com>")).toBe("jane@y.com");
    expect(addressOf("jane@y.com")).toBe("jane@y.com");
    expect(addressOf("jane@y.com\r\nBcc: x@evil.com")).toBeUndefined();
    expect(addressOf("jane")).toBeUndefined();
  });

  it("encodes non-ASCII header text as RFC 2047 words of at most 75 characters", () => {
    expect(encodeHeaderText("Hello")).toBe("Hello");
    const long = encodeHeaderText("Ünïcödé ".repeat(20));
    for (const word of long.split("\r\n ")) expect(word.length).toBeLessThanOrEqual(75);
    const decoded = long
      .split("\r\n ")
      .map((w) => Buffer.from(w.slice(10, -2), "base64").toString("utf8"))
      .join("");
    expect(decoded).toBe("Ünïcödé ".repeat(20));
  });

  it("builds a plain-text message with base64 body lines of 76 characters", () => {
    const raw = buildRawMessage({ to: ["a@x.com"], subject: "S", body: "x".repeat(500) });
    const [head, body] = raw.split("\r\n\r\n");
    expect(head).toBe(
      'To: a@x.com\r\nSubject: S\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset="UTF-8"\r\nContent-Transfer-Encoding: base64',
    );
    for (const line of body!.trim().split("\r\n")) expect(line.length).toBeLessThanOrEqual(76);
    expect(toBase64Url(raw)).not.toMatch(/[+/=]/);
  });
});
