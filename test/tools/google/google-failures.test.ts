import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { googleHarness, type Harness } from "../../fixtures/google/google-harness.js";

let h: Harness;
beforeEach(async () => {
  h = await googleHarness({ timeoutMs: 1500 });
});
afterEach(async () => {
  await h.close();
});

const googleError = (code: number, message: string, reason?: string, status?: string) =>
  JSON.stringify({
    error: { code, message, ...(reason ? { errors: [{ domain: "usageLimits", reason, message }] } : {}), ...(status ? { status } : {}) },
  });

describe("Google API failures, through the runner", () => {
  it("429 with Retry-After: the read tool is retried and succeeds", async () => {
    h.fake.script.push({
      match: "/messages",
      status: 429,
      headers: { "retry-after": "0" },
      body: googleError(429, "Too many concurrent requests for user", "rateLimitExceeded", "RESOURCE_EXHAUSTED"),
    });
    const outcome = await h.runner().run({ name: "gmail_search", args: { query: "is:unread" } });
    expect(outcome.status).toBe("success");
    expect(h.fake.requests.filter((r) => r.path.endsWith("/messages"))).toHaveLength(2);
  });

  it("429 carries the Retry-After wait in the error", async () => {
    h.fake.script.push({
      match: "/events",
      status: 429,
      headers: { "retry-after": "12" },
      body: googleError(429, "Rate Limit Exceeded", "rateLimitExceeded"),
    });
    const err = await h.tools
      .get("calendar_list_events")!
      .execute({} as never)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "RATE_LIMITED", retryAfterMs: 12_000 });
    expect((err as Error).message).toMatch(/Retry after 12 s/);
  });

  it("403 rateLimitExceeded (Google's other rate-limit answer) is RATE_LIMITED too", async () => {
    h.fake.script.push({ match: "/events/", status: 403, body: googleError(403, "Rate Limit Exceeded", "rateLimitExceeded") });
    const outcome = await h.runner().run({ name: "calendar_get_event", args: { eventId: "standup001" } });
    expect(outcome.status).toBe("success");
  });

  it("403 insufficient permissions is a clear, final refusal", async () => {
    h.fake.script.push({
      match: "/messages",
      status: 403,
      body: googleError(403, "Request had insufficient authentication scopes.", "insufficientPermissions", "PERMISSION_DENIED"),
    });
    const outcome = await h.runner().run({ name: "gmail_search", args: { query: "x" } });
    expect(outcome.error?.code).toBe("PERMISSION_DENIED");
    expect(outcome.content).toMatch(/HTTP 403: Request had insufficient authentication scopes/);
    expect(h.fake.requests.filter((r) => r.path.startsWith("/gmail"))).toHaveLength(1);
    // No refresh is spent on a 403.
    expect(h.fake.requests.filter((r) => r.path === "/token")).toHaveLength(0);
  });

  it("5xx is UNAVAILABLE, retried up to the runner's limit", async () => {
    for (let i = 0; i < 3; i++)
      h.fake.script.push({
        match: "/events",
        status: 503,
        body: googleError(503, "The service is currently unavailable.", "backendError"),
      });
    const outcome = await h.runner().run({ name: "calendar_list_events", args: {} });
    expect(outcome.error?.code).toBe("UNAVAILABLE");
    expect(outcome.content).toMatch(/Google Calendar is unavailable \(HTTP 503/);
    expect(h.fake.requests.filter((r) => r.path.startsWith("/calendar"))).toHaveLength(3);
  });

  it("a 500 followed by success recovers", async () => {
    h.fake.script.push({ match: "/messages/", status: 500, body: "<html>Internal error</html>", headers: { "content-type": "text/html" } });
    const outcome = await h.runner().run({ name: "gmail_read", args: { id: "18c1a2b3c4d5e6f7" } });
    expect(outcome.status).toBe("success");
  });

  it("a request that never answers times out (and the read is retried)", async () => {
    h.fake.script.push({ match: "/messages/", hang: true });
    const outcome = await h.runner().run({ name: "gmail_read", args: { id: "18c1a2b3c4d5e6f7" } });
    expect(outcome.status).toBe("success");
    const again = await googleHarness({ timeoutMs: 500 });
    try {
      for (let i = 0; i < 3; i++) again.fake.script.push({ match: "/events", hang: true });
      const failed = await again.runner().run({ name: "calendar_list_events", args: {} });
      expect(failed.error?.code).toBe("TIMEOUT");
      expect(failed.content).toMatch(/did not answer in time/);
    } finally {
      await again.close();
    }
  });

  it("malformed bodies are reported, not turned into empty results", async () => {
    const cases: Array<[string, string, Record<string, unknown>]> = [
      ["/messages", "<html>not json</html>", { query: "x" }],
      ["/messages", JSON.stringify({ messages: "nope" }), { query: "x" }],
    ];
    for (const [match, body, args] of cases) {
      h.fake.script.push({ match, status: 200, body });
      const outcome = await h.runner().run({ name: "gmail_search", args });
      expect(outcome.status, body).toBe("error");
      expect(outcome.content).toMatch(/Gmail returned an unexpected response/);
    }
    h.fake.script.push({ match: "/messages/", status: 200, body: JSON.stringify({ id: "x" }) });
    expect((await h.runner().run({ name: "gmail_read", args: { id: "x" } })).content).toMatch(/unexpected response/);
    h.fake.script.push({ match: "/events", status: 200, body: JSON.stringify({ items: [{ summary: "no id" }] }) });
    expect((await h.runner().run({ name: "calendar_list_events", args: {} })).content).toMatch(
      /Google Calendar returned an unexpected response/,
    );
    h.fake.script.push({ match: "/events/", status: 200, body: "{" });
    expect((await h.runner().run({ name: "calendar_get_event", args: { eventId: "standup001" } })).content).toMatch(/unexpected response/);
  });

  it("an unreachable API is a NETWORK_ERROR", async () => {
    await h.fake.stop();
    const outcome = await h.runner({ retry: false }).run({ name: "gmail_search", args: { query: "x" } });
    expect(outcome.error?.code).toBe("NETWORK_ERROR");
    expect(outcome.content).toMatch(/Could not reach Gmail/);
    await h.fake.start();
  });

  it("an unreachable token endpoint during refresh is reported, the cached tokens kept", async () => {
    const x = await googleHarness({ seed: "expired" });
    try {
      for (let i = 0; i < 4; i++)
        x.fake.script.push({ match: "/token", status: 503, body: JSON.stringify({ error: "temporarily_unavailable" }) });
      const outcome = await x.runner({ retry: false }).run({ name: "gmail_search", args: { query: "x" } });
      expect(outcome.status).toBe("error");
      expect(outcome.error?.code).toBe("UNAVAILABLE");
      expect(x.opened).toHaveLength(0);
      expect(existsSync(x.tokenFile("gmail"))).toBe(true);
    } finally {
      await x.close();
    }
  });
});
