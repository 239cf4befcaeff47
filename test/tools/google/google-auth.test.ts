import { afterEach, describe, expect, it } from "vitest";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { googleHarness, seedTokens, type Harness, type HarnessOptions } from "../../fixtures/google/google-harness.js";
import { CLIENT_ID } from "../../fixtures/google/fake-google.js";

let h: Harness | undefined;
async function harness(options: HarnessOptions): Promise<Harness> {
  h = await googleHarness(options);
  return h;
}
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const tokenRequests = (x: Harness) => x.fake.requests.filter((r) => r.path === "/token").map((r) => new URLSearchParams(r.body));
const mode = (file: string) => statSync(file).mode & 0o777;
const readTokens = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;

describe("cached tokens", () => {
  it("refreshes an expired access token with the refresh_token grant and saves the new one", async () => {
    const x = await harness({ seed: "expired" });
    const outcome = await x.runner().run({ name: "gmail_search", args: { query: "is:unread" } });
    expect(outcome.status).toBe("success");
    const grants = tokenRequests(x);
    expect(grants).toHaveLength(1);
    expect(grants[0]!.get("grant_type")).toBe("refresh_token");
    expect(grants[0]!.get("refresh_token")).toBe("refresh-valid");
    expect(x.fake.requests.find((r) => r.path.startsWith("/gmail"))!.headers.authorization).toMatch(/^Bearer access-\d+-/);
    const saved = readTokens(x.tokenFile("gmail"));
    expect(saved["access_token"]).toMatch(/^access-\d+-/);
    expect(saved["refresh_token"]).toBe("refresh-valid");
    expect(saved["expiry_date"] as number).toBeGreaterThan(Date.now());
    expect(mode(x.tokenFile("gmail"))).toBe(0o600);
    expect(mode(path.dirname(x.tokenFile("gmail")))).toBe(0o700);
    expect(x.opened).toHaveLength(0);
  });

  it("on a 401 refreshes once and retries", async () => {
    const x = await harness({ seed: "none" });
    // An access token Google has since revoked, not yet expired by the clock.
    seedTokens(path.dirname(x.tokenFile("calendar")), {
      access_token: "access-revoked",
      refresh_token: "refresh-valid",
      expiry_date: Date.now() + 3_600_000,
    });
    const outcome = await x.runner().run({ name: "calendar_get_event", args: { eventId: "standup001" } });
    expect(outcome.status).toBe("success");
    expect(tokenRequests(x).map((g) => g.get("grant_type"))).toEqual(["refresh_token"]);
    const calls = x.fake.requests.filter((r) => r.path.startsWith("/calendar"));
    expect(calls.map((r) => r.headers.authorization)).toEqual(["Bearer access-revoked", expect.stringMatching(/^Bearer access-\d+-/)]);
    expect(readTokens(x.tokenFile("calendar"))["access_token"]).not.toBe("access-revoked");
  });

  it("a 401 that survives the refresh signs out with a clear message (one refresh only)", async () => {
    const x = await harness({ seed: "valid" });
    const unauthorized = {
      match: "/gmail",
      status: 401,
      body: JSON.stringify({ error: { code: 401, message: "Invalid Credentials", status: "UNAUTHENTICATED" } }),
    };
    x.fake.script.push(unauthorized, { ...unauthorized });
    const outcome = await x.runner().run({ name: "gmail_read", args: { id: "18c1a2b3c4d5e6f7" } });
    expect(outcome.error?.code).toBe("PERMISSION_DENIED");
    expect(outcome.error?.recoverable).toBe(false);
    expect(outcome.content).toMatch(/no longer accepts the saved Gmail sign-in.*call the tool again to sign in/);
    expect(tokenRequests(x)).toHaveLength(1);
    expect(existsSync(x.tokenFile("gmail"))).toBe(false);
  });

  it("a revoked refresh token starts a new sign-in", async () => {
    const x = await harness({ seed: "none", browser: "act" });
    seedTokens(path.dirname(x.tokenFile("gmail")), {
      access_token: "access-old",
      refresh_token: "refresh-revoked",
      expiry_date: Date.now() - 1000,
    });
    const outcome = await x.runner().run({ name: "gmail_search", args: { query: "fotos" } });
    expect(outcome.status).toBe("success");
    expect(tokenRequests(x).map((g) => g.get("grant_type"))).toEqual(["refresh_token", "authorization_code"]);
    expect(x.opened).toHaveLength(1);
    expect(readTokens(x.tokenFile("gmail"))["refresh_token"]).toMatch(/^refresh-[0-9a-f]+$/);
  });

  it("an expired access token with no refresh token signs in again", async () => {
    const x = await harness({ seed: "none", browser: "act" });
    seedTokens(path.dirname(x.tokenFile("calendar")), { access_token: "access-valid", expiry_date: Date.now() - 1000 });
    const outcome = await x.runner().run({ name: "calendar_list_events", args: {} });
    expect(outcome.status).toBe("success");
    expect(x.opened).toHaveLength(1);
    expect(tokenRequests(x).map((g) => g.get("grant_type"))).toEqual(["authorization_code"]);
  });

  it("ignores a corrupt token file and signs in again", async () => {
    const x = await harness({ seed: "none", browser: "act" });
    seedTokens(path.dirname(x.tokenFile("gmail")), {});
    const outcome = await x.runner().run({ name: "gmail_search", args: { query: "x" } });
    expect(outcome.status).toBe("success");
    expect(x.opened).toHaveLength(1);
  });
});

describe("loopback sign-in", () => {
  it("runs end to end: consent URL, redirect to 127.0.0.1, PKCE code exchange, tokens cached 0600", async () => {
    const x = await harness({ seed: "none", browser: "act" });
    const outcome = await x.runner().run({ name: "gmail_search", args: { query: "is:unread" } });
    expect(outcome.status).toBe("success");
    expect(x.opened).toHaveLength(1);
    const auth = new URL(x.opened[0]!);
    expect(`${auth.origin}${auth.pathname}`).toBe(`${x.fake.url}/o/oauth2/v2/auth`);
    const q = auth.searchParams;
    expect(q.get("client_id")).toBe(CLIENT_ID);
    expect(q.get("response_type")).toBe("code");
    expect(q.get("access_type")).toBe("offline");
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("state")).toMatch(/^[0-9a-f]{32}$/);
    expect(q.get("scope")).toContain("https://www.googleapis.com/auth/gmail.readonly");
    expect(q.get("scope")).toContain("https://www.googleapis.com/auth/gmail.send");
    const redirect = new URL(q.get("redirect_uri")!);
    expect(redirect.hostname).toBe("127.0.0.1");
    expect(Number(redirect.port)).toBeGreaterThan(0);
    expect(await x.browserPages[0]).toContain("Signed in");
    const exchange = tokenRequests(x)[0]!;
    expect(exchange.get("grant_type")).toBe("authorization_code");
    expect(exchange.get("code_verifier")).toBeTruthy();
    expect(exchange.get("redirect_uri")).toBe(q.get("redirect_uri"));
    const file = x.tokenFile("gmail");
    expect(mode(file)).toBe(0o600);
    expect(mode(path.dirname(file))).toBe(0o700);
    expect(readFileSync(path.join(path.dirname(file), ".gitignore"), "utf8")).toBe("*\n");
    expect(readTokens(file)).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String) });
    // The listener is gone once it has its code.
    await expect(fetch(q.get("redirect_uri")!)).rejects.toThrow();
    // The next call uses the cache; Calendar has its own sign-in and folder.
    await x.runner().run({ name: "gmail_read", args: { id: "18c1a2b3c4d5e6f7" } });
    expect(x.opened).toHaveLength(1);
    expect(existsSync(x.tokenFile("calendar"))).toBe(false);
    const cal = await x.runner().run({ name: "calendar_list_events", args: {} });
    expect(cal.status).toBe("success");
    expect(x.opened).toHaveLength(2);
    expect(new URL(x.opened[1]!).searchParams.get("scope")).toBe("https://www.googleapis.com/auth/calendar.events");
    expect(mode(x.tokenFile("calendar"))).toBe(0o600);
  });

  it("without a browser or a terminal fails at once with the URL, then a later call finds the tokens", async () => {
    const x = await harness({ seed: "none", browser: "fail", interactive: false });
    const outcome = await x.runner().run({ name: "gmail_search", args: { query: "x" } });
    expect(outcome.error?.code).toBe("PERMISSION_DENIED");
    expect(outcome.error?.recoverable).toBe(false);
    expect(outcome.content).toMatch(/needs a Google sign-in, and no browser could be opened here/);
    expect(outcome.content).toContain(x.opened[0]);
    expect(x.notes.join("\n")).toContain(x.opened[0]);
    // A second call while the sign-in is open gives the same URL rather than starting another.
    const again = await x.runner().run({ name: "gmail_search", args: { query: "x" } });
    expect(again.content).toContain(x.opened[0]);
    expect(x.opened).toHaveLength(1);
    // The person opens the URL later.
    expect(await (await fetch(x.opened[0]!)).text()).toContain("Signed in");
    for (let i = 0; i < 50 && !existsSync(x.tokenFile("gmail")); i++) await new Promise((r) => setTimeout(r, 20));
    const later = await x.runner().run({ name: "gmail_search", args: { query: "x" } });
    expect(later.status).toBe("success");
    expect(x.opened).toHaveLength(1);
  });

  it("with a terminal but no browser, prints the URL and waits for the person", async () => {
    const x = await harness({ seed: "none", browser: "fail", interactive: true });
    const running = x.runner().run({ name: "calendar_get_event", args: { eventId: "standup001" } });
    for (let i = 0; i < 100 && x.notes.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const url = /https?:\/\/\S+/.exec(x.notes[0]!)![0];
    await fetch(url);
    const outcome = await running;
    expect(outcome.status).toBe("success");
  });

  it("gives up after the bounded wait when nobody signs in", async () => {
    const x = await harness({ seed: "none", browser: "ignore", authTimeoutMs: 300 });
    const outcome = await x.runner().run({ name: "gmail_search", args: { query: "x" } });
    expect(outcome.error?.code).toBe("PERMISSION_DENIED");
    expect(outcome.content).toMatch(/not completed within 0 s|not completed within/);
    expect(tokenRequests(x)).toHaveLength(0);
  });

  it("reports a declined consent", async () => {
    const x = await harness({ seed: "none", browser: "act" });
    x.fake.consent = "access_denied";
    const outcome = await x.runner().run({ name: "gmail_search", args: { query: "x" } });
    expect(outcome.error?.code).toBe("PERMISSION_DENIED");
    expect(outcome.content).toMatch(/was not granted \(access_denied\)/);
    expect(existsSync(x.tokenFile("gmail"))).toBe(false);
  });

  it("ignores a redirect that does not carry the flow's state", async () => {
    const x = await harness({ seed: "none", browser: "ignore", interactive: true });
    const running = x.runner().run({ name: "gmail_search", args: { query: "x" } });
    for (let i = 0; i < 100 && x.opened.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const redirect = new URL(new URL(x.opened[0]!).searchParams.get("redirect_uri")!);
    redirect.searchParams.set("code", "attacker-code");
    redirect.searchParams.set("state", "forged");
    const forged = await fetch(redirect);
    expect(forged.status).toBe(400);
    // The real consent still completes the flow.
    await fetch(x.opened[0]!);
    const outcome = await running;
    expect(outcome.status).toBe("success");
    expect(tokenRequests(x).map((g) => g.get("code"))).not.toContain("attacker-code");
  });

  it("stops waiting when the call is cancelled", async () => {
    const x = await harness({ seed: "none", browser: "ignore", interactive: true });
    const controller = new AbortController();
    const running = x.runner().run({ name: "gmail_search", args: { query: "x" } }, { signal: controller.signal });
    for (let i = 0; i < 100 && x.opened.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    const outcome = await running;
    expect(outcome.status).toBe("cancelled");
  });
});
