import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { googleHarness, type Harness } from "../../fixtures/google/google-harness.js";

let h: Harness;
beforeEach(async () => {
  h = await googleHarness();
});
afterEach(async () => {
  await h.close();
});

describe("gmail_search", () => {
  it("lists ids, then fetches each message's metadata", async () => {
    const outcome = await h.runner().run({ name: "gmail_search", args: { query: "is:unread", maxResults: 5 } });
    expect(outcome.status).toBe("success");
    const list = h.fake.seen("/gmail/v1/users/me/messages").filter((r) => r.path.endsWith("/messages"));
    expect(list).toHaveLength(1);
    expect(list[0]!.query.get("q")).toBe("is:unread");
    expect(list[0]!.query.get("maxResults")).toBe("5");
    expect(list[0]!.headers.authorization).toBe("Bearer access-valid");
    const gets = h.fake.requests.filter((r) => /\/messages\/[^/]+$/.test(r.path));
    expect(gets.map((r) => r.query.get("format"))).toEqual(["metadata", "metadata"]);
    expect(gets[0]!.query.getAll("metadataHeaders")).toEqual(expect.arrayContaining(["From", "Subject", "Date"]));
    expect(outcome.content).toContain('2 messages matching "is:unread"');
    expect(outcome.content).toContain("[18c1a2b3c4d5e6f7] (unread) Sun, 23 Nov 2026 09:15:00 +0000");
    expect(outcome.content).toContain("From: Alice Example <alice@example.com>");
    expect(outcome.content).toContain("Subject: Meeting tomorrow");
    // Entities in snippets are decoded.
    expect(outcome.content).toContain("tomorrow's meeting");
    // Sender-written text reaches the model marked as untrusted.
    expect(outcome.content).toMatch(/untrusted/i);
    const structured = outcome.structured as { messages: Array<Record<string, unknown>> };
    expect(structured.messages[1]).toMatchObject({ id: "18c1a2b3c4d5e701", from: "Bernd <bernd@example.de>", subject: "Fotos" });
  });

  it("reads headers without regard to case", async () => {
    const outcome = await h.runner().run({ name: "gmail_search", args: { query: "invoice" } });
    expect(outcome.content).toContain("From: Billing <billing@shop.example>");
    expect(outcome.content).toContain("Subject: Invoice #42");
    expect(outcome.content).toContain("Your invoice & receipt");
  });

  it("says so when nothing matches", async () => {
    const outcome = await h.runner().run({ name: "gmail_search", args: { query: "from:nobody@example.com" } });
    expect(outcome.status).toBe("success");
    expect(outcome.content).toBe('No messages match "from:nobody@example.com".');
  });

  it("gives the next page token when more match", async () => {
    const outcome = await h.runner().run({ name: "gmail_search", args: { query: "", maxResults: 2 } });
    expect(outcome.content).toMatch(/pageToken "2"/);
    const next = await h.runner().run({ name: "gmail_search", args: { query: "", maxResults: 2, pageToken: "2" } });
    expect(next.content).toContain("18c1a2b3c4d5e701");
  });

  it("refuses maxResults out of range before any request", async () => {
    const outcome = await h.runner().run({ name: "gmail_search", args: { query: "x", maxResults: 500 } });
    expect(outcome.error?.code).toBe("INVALID_ARGS");
    expect(h.fake.requests).toHaveLength(0);
  });
});

describe("gmail_read", () => {
  it("reads a plain-text message", async () => {
    const outcome = await h.runner().run({ name: "gmail_read", args: { id: "18c1a2b3c4d5e6f7" } });
    expect(outcome.status).toBe("success");
    expect(h.fake.requests[0]!.query.get("format")).toBe("full");
    expect(outcome.content).toContain("From: Alice Example <alice@example.com>");
    expect(outcome.content).toContain("Subject: Meeting tomorrow");
    expect(outcome.content).toContain("Can we move tomorrow's meeting to 3pm?\n\nAlice");
    expect(outcome.content).not.toContain("\r");
  });

  it("prefers the HTML part of multipart/alternative, converted to text", async () => {
    const outcome = await h.runner().run({ name: "gmail_read", args: { id: "18c1a2b3c4d5e700" } });
    expect(outcome.content).toContain("Invoice #42");
    expect(outcome.content).toContain("Total: €19.99");
    expect(outcome.content).toContain("Book\t19.99");
    expect(outcome.content).toContain("• Paid by card");
    expect(outcome.content).not.toContain("View this email in a browser");
    expect(outcome.content).not.toContain("alert(1)");
    expect(outcome.content).not.toContain("color:red");
  });

  it("walks nested parts, honours the charset, and lists attachments", async () => {
    const outcome = await h.runner().run({ name: "gmail_read", args: { id: "18c1a2b3c4d5e701" } });
    expect(outcome.content).toContain("Grüße aus Köln, bis bald");
    expect(outcome.content).toContain("Cc: carol@example.com");
    expect(outcome.content).toContain("Attachments: fotos.pdf (application/pdf, 52341 bytes)");
  });

  it("reports an unknown id clearly", async () => {
    const outcome = await h.runner().run({ name: "gmail_read", args: { id: "doesnotexist" } });
    expect(outcome.status).toBe("error");
    expect(outcome.content).toMatch(/HTTP 404.*Requested entity was not found/);
  });

  it("refuses an id that is not a Gmail id before any request", async () => {
    const outcome = await h.runner().run({ name: "gmail_read", args: { id: "../../settings" } });
    expect(outcome.error?.code).toBe("INVALID_ARGS");
    expect(h.fake.requests).toHaveLength(0);
  });
});

describe("gmail_send", () => {
  it("always asks for approval, even in safe mode for a network tool", async () => {
    const asked: unknown[] = [];
    const r = h.runner({ approval: "safe", approver: async (req) => (asked.push(req), { approved: false, message: "not now" }) });
    const outcome = await r.run({ name: "gmail_send", args: { to: "bob@example.com", subject: "Hi", body: "Hello" } });
    expect(outcome.status).toBe("rejected");
    expect(asked).toHaveLength(1);
    expect((asked[0] as { preview?: string }).preview).toContain("To: bob@example.com\nSubject: Hi\n\nHello");
    expect(h.fake.sent).toHaveLength(0);
  });

  it("sends a plain-text RFC 2822 message as base64url raw", async () => {
    const r = h.runner({ approval: "safe", approver: async () => ({ approved: true }) });
    const outcome = await r.run({
      name: "gmail_send",
      args: {
        to: ["Bob <bob@example.com>", "dave@example.com"],
        cc: "carol@example.com",
        bcc: ["eve@example.com"],
        subject: "Grüße 👋",
        body: "Line one\nLine two — ünïcödé",
      },
    });
    expect(outcome.status).toBe("success");
    expect(outcome.content).toMatch(
      /Sent "Grüße 👋" to Bob <bob@example.com>, dave@example.com, carol@example.com, eve@example.com \(message id sent-1/,
    );
    const { decoded } = h.fake.sent[0]!;
    const [head, body] = decoded.split("\r\n\r\n");
    expect(head).toContain('To: "Bob" <bob@example.com>, dave@example.com');
    expect(head).toContain("Cc: carol@example.com");
    expect(head).toContain("Bcc: eve@example.com");
    expect(head).toContain('Content-Type: text/plain; charset="UTF-8"');
    const subject = /Subject: (.+)/.exec(head!)![1]!;
    expect(subject).toMatch(/^=\?UTF-8\?B\?/);
    expect(Buffer.from(subject.replace(/=\?UTF-8\?B\?|\?=/g, ""), "base64").toString("utf8")).toBe("Grüße 👋");
    expect(Buffer.from(body!.replace(/\r\n/g, ""), "base64").toString("utf8")).toBe("Line one\r\nLine two — ünïcödé");
  });

  it("refuses header injection and bad addresses before any request", async () => {
    const r = h.runner();
    const bad = [
      { to: "bob@example.com\r\nBcc: spy@evil.example", subject: "x", body: "y" },
      { to: "bob@example.com", subject: "x\r\nBcc: spy@evil.example", body: "y" },
      { to: "not an address", subject: "x", body: "y" },
      { to: [], subject: "x", body: "y" },
    ];
    for (const args of bad) {
      const outcome = await r.run({ name: "gmail_send", args });
      expect(outcome.error?.code, JSON.stringify(args)).toBe("INVALID_ARGS");
    }
    expect(h.fake.requests).toHaveLength(0);
  });

  it("is not retried after a server error, and warns it may have gone out", async () => {
    h.fake.script.push({
      match: "/send",
      status: 503,
      body: JSON.stringify({ error: { code: 503, message: "Backend Error", status: "UNAVAILABLE" } }),
    });
    const outcome = await h.runner().run({ name: "gmail_send", args: { to: "bob@example.com", subject: "x", body: "y" } });
    expect(outcome.error?.code).toBe("UNAVAILABLE");
    expect(outcome.content).toMatch(/may or may not have been sent/);
    expect(h.fake.seen("/send")).toHaveLength(1);
  });
});
