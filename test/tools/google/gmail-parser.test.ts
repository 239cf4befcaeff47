import { describe, expect, it } from "vitest";
import iconv from "iconv-lite";
import { GmailParser, type MessagePart } from "../../../src/tools/google/gmail-parser.js";

const b64url = (s: string | Buffer) => Buffer.from(s).toString("base64url");
const part = (mimeType: string, body: string, extra: Partial<MessagePart> = {}): MessagePart => ({
  mimeType,
  body: { size: body.length, data: b64url(body) },
  ...extra,
});

describe("GmailParser.decodeBody", () => {
  it("decodes base64url with or without padding, including - and _", () => {
    const text = "ÿþ>>?? hello ~~~ ünï";
    const std = Buffer.from(text).toString("base64");
    expect(std).toMatch(/[+/]/);
    expect(GmailParser.decodeBody(b64url(text))).toBe(text);
    expect(GmailParser.decodeBody(std.replace(/\+/g, "-").replace(/\//g, "_"))).toBe(text);
    expect(GmailParser.decodeBody(`${b64url(text)}==`)).toBe(text);
    expect(GmailParser.decodeBody("")).toBe("");
    expect(GmailParser.decodeBody(undefined)).toBe("");
  });

  it("honours a named charset", () => {
    expect(GmailParser.decodeBody(b64url(iconv.encode("Grüße", "iso-8859-1")), "ISO-8859-1")).toBe("Grüße");
    expect(GmailParser.decodeBody(b64url(iconv.encode("Привет", "koi8-r")), "koi8-r")).toBe("Привет");
    expect(GmailParser.decodeBody(b64url("plain"), "x-unknown-charset")).toBe("plain");
  });
});

describe("GmailParser.getHeader", () => {
  it("looks headers up in any case", () => {
    const headers = [
      { name: "SUBJECT", value: "Hi" },
      { name: "from", value: "a@b.c" },
    ];
    expect(GmailParser.getHeader(headers, "Subject")).toBe("Hi");
    expect(GmailParser.getHeader(headers, "FROM")).toBe("a@b.c");
    expect(GmailParser.getHeader(headers, "To")).toBeUndefined();
    expect(GmailParser.getHeader(undefined, "To")).toBeUndefined();
  });
});

describe("GmailParser.extractText", () => {
  it("prefers HTML in multipart/alternative, whatever the order", () => {
    const alt = (parts: MessagePart[]): MessagePart => ({ mimeType: "multipart/alternative", parts });
    const plain = part("text/plain", "plain version");
    const html = part("text/html", "<p>html <b>version</b></p>");
    expect(GmailParser.extractText(alt([plain, html]))).toBe("html version");
    expect(GmailParser.extractText(alt([html, plain]))).toBe("html version");
    expect(GmailParser.extractText(alt([plain]))).toBe("plain version");
  });

  it("finds HTML inside multipart/related within alternative, and joins mixed parts", () => {
    const msg: MessagePart = {
      mimeType: "multipart/mixed",
      parts: [
        {
          mimeType: "multipart/alternative",
          parts: [
            part("text/plain", "stub"),
            {
              mimeType: "multipart/related",
              parts: [part("text/html", "<div>rich body</div>"), part("image/png", "PNG", { filename: "logo.png" })],
            },
          ],
        },
        part("text/plain", "a second text part"),
        part("application/pdf", "%PDF", { filename: "doc.pdf" }),
      ],
    };
    expect(GmailParser.extractText(msg)).toBe("rich body\n\na second text part");
    expect(GmailParser.attachments(msg).map((a) => a.filename)).toEqual(["logo.png", "doc.pdf"]);
  });

  it("skips text parts that are attachments, and survives hostile depth", () => {
    const attached = part("text/plain", "not the body", {
      headers: [{ name: "Content-Disposition", value: "attachment; filename=notes.txt" }],
    });
    expect(GmailParser.extractText({ mimeType: "multipart/mixed", parts: [part("text/plain", "the body"), attached] })).toBe("the body");
    let deep: MessagePart = part("text/plain", "bottom");
    for (let i = 0; i < 1000; i++) deep = { mimeType: "multipart/mixed", parts: [deep] };
    expect(GmailParser.extractText(deep)).toBe("");
  });

  it("reads a single-part message and normalises CRLF", () => {
    expect(GmailParser.extractText(part("text/plain", "a\r\nb\r\n"))).toBe("a\nb");
    expect(GmailParser.extractText(undefined)).toBe("");
  });
});
