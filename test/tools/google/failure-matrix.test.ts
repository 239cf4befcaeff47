import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { googleHarness, type Harness } from "../../fixtures/google/google-harness.js";
import type { Scripted } from "../../fixtures/google/fake-google.js";

/** Every Google tool with arguments that succeed against the fake, and the path its first request takes. */
const TOOLS: Array<[string, Record<string, unknown>, string]> = [
  ["gmail_search", { query: "is:unread" }, "/gmail/"],
  ["gmail_read", { id: "18c1a2b3c4d5e6f7" }, "/gmail/"],
  ["gmail_send", { to: "bob@example.com", subject: "Hi", body: "Hello" }, "/gmail/"],
  ["calendar_list_events", {}, "/calendar/"],
  ["calendar_create_event", { summary: "Lunch", start: "2026-11-25T12:00:00Z" }, "/calendar/"],
  ["calendar_get_event", { eventId: "standup001" }, "/calendar/"],
];

const body = (code: number, message: string, reason: string) => JSON.stringify({ error: { code, message, errors: [{ reason, message }] } });

/** The failures a real Google API gives, and the outcome each must become. */
const FAILURES: Array<[string, (match: string) => Scripted[], string, RegExp]> = [
  [
    "401 twice",
    (m) => [0, 1].map(() => ({ match: m, status: 401, body: body(401, "Invalid Credentials", "authError") })),
    "PERMISSION_DENIED",
    /sign in to Google again/,
  ],
  [
    "403",
    (m) => [{ match: m, status: 403, body: body(403, "Insufficient Permission", "insufficientPermissions") }],
    "PERMISSION_DENIED",
    /HTTP 403: Insufficient Permission/,
  ],
  [
    "429",
    (m) => [{ match: m, status: 429, headers: { "retry-after": "30" }, body: body(429, "Rate Limit Exceeded", "rateLimitExceeded") }],
    "RATE_LIMITED",
    /Retry after 30 s/,
  ],
  ["503", (m) => [{ match: m, status: 503, body: body(503, "Backend Error", "backendError") }], "UNAVAILABLE", /HTTP 503: Backend Error/],
  [
    "malformed",
    (m) => [{ match: m, status: 200, body: "<html>captive portal</html>", headers: { "content-type": "text/html" } }],
    "EXECUTION_ERROR",
    /unexpected response/,
  ],
  ["no answer", (m) => [{ match: m, hang: true }], "TIMEOUT", /did not answer in time/],
];

let h: Harness;
beforeEach(async () => {
  h = await googleHarness({ timeoutMs: 1000 });
});
afterEach(async () => {
  await h.close();
});

describe.each(TOOLS)("%s against a failing Google", (name, args, match) => {
  it.each(FAILURES)("%s", async (_what, script, code, message) => {
    h.fake.script.push(...script(match));
    const outcome = await h.runner({ retry: false }).run({ name, args });
    expect(outcome.status).toBe("error");
    expect(outcome.error?.code).toBe(code);
    expect(outcome.content).toMatch(message);
  });
});
