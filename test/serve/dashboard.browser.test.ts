// The dashboard in a real browser: Debian's Chromium (installed by .ci/run) driven by
// playwright-core. Every wait is on a selector or a response, never a fixed sleep, so a busy
// machine only makes it slower.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startServe, type ServeHandle, type ServeOptions } from "../../src/serve/server.js";
import { tempDir } from "../support/tools.js";
import { Desk } from "../../src/store/desk.js";
import { FileStore } from "../../src/store/file-store.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
// Taken into memory by default, so a run leaves nothing behind; the committed copy in
// test/serve/__screenshots__ was written with DASHBOARD_SCREENSHOT pointing there.
const SCREENSHOT = process.env.DASHBOARD_SCREENSHOT;
const TOKEN = "s3cret-token";

let browser: Browser;
let ws: ReturnType<typeof tempDir>;
const handles: ServeHandle[] = [];
const pages: Page[] = [];
/** Calls started from the test; each settles before its server closes. */
const calls: Array<Promise<unknown>> = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH.`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-background-networking", "--disable-dev-shm-usage", "--disable-gpu"],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

beforeEach(() => {
  ws = tempDir();
  writeFileSync(path.join(ws.dir, "a.txt"), "alpha\nbeta\ngamma\n");
  // An earlier run's audit log, so the history starts with calls this server never made.
  const earlier = Array.from({ length: 120 }, (_, i) =>
    JSON.stringify({
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      toolCallId: `old-${i}`,
      toolName: i % 3 === 0 ? "shell" : "read_file",
      params: i % 3 === 0 ? { command: `echo old${i}` } : { path: `notes/${i}.md` },
      status: i % 10 === 0 ? "error" : "success",
      ...(i % 10 === 0 ? { error: `failed number ${i}`, errorCode: "EXECUTION_FAILED" } : { result: `result ${i}` }),
      executionTimeMs: 5 + i,
      approvedBy: "auto",
    }),
  );
  writeFileSync(path.join(ws.dir, "audit.jsonl"), `${earlier.join("\n")}\n`);
  writeFileSync(
    path.join(ws.dir, "tackle.config.json"),
    JSON.stringify({ log: "audit.jsonl", permissions: { allow: ["read_file"] }, staleEditGuard: false }),
  );
});
afterEach(async () => {
  await Promise.all(pages.splice(0).map((p) => p.close()));
  await Promise.all(handles.splice(0).map((h) => h.close()));
  await Promise.allSettled(calls.splice(0));
  ws.cleanup();
});

async function serve(options: ServeOptions = {}): Promise<ServeHandle> {
  const handle = await startServe({ port: 0, workspace: ws.dir, mcp: false, ...options });
  handles.push(handle);
  return handle;
}

/** The server's address by loopback, whatever it bound (a wildcard bind prints 0.0.0.0). */
const base = (h: ServeHandle) => `http://127.0.0.1:${h.port}/`;

/** Opens the dashboard, failing the test on any request that leaves the server. */
async function open(h: ServeHandle, query = ""): Promise<{ page: Page; outside: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  pages.push(page);
  const outside: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith(base(h))) outside.push(r.url());
  });
  await page.goto(base(h) + query);
  await page.locator("#status", { hasText: "live" }).waitFor();
  return { page, outside };
}

interface Outcome {
  status: string;
  content: string;
  userMessage?: string;
}

/** Starts a call through the API as an agent would; resolves to its outcome. */
function call(h: ServeHandle, id: string, name: string, args: unknown, headers: Record<string, string> = {}): Promise<Outcome> {
  const p = fetch(base(h) + "api/calls", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ name, id, args }),
  }).then((r) => r.json() as Promise<Outcome>);
  calls.push(p);
  return p;
}

/** Waits until the history lists exactly `n` calls (the table is rebuilt in one task, never seen half done). */
async function rows(page: Page, n: number): Promise<void> {
  await page.locator("#history tr.call").nth(n).waitFor({ state: "detached" });
  await page
    .locator("#history tr.call")
    .nth(n - 1)
    .waitFor({ state: "attached" });
  await page.locator("#history tr.call").nth(n).waitFor({ state: "detached" });
}

/** The card of the call with this toolCallId (cards are keyed by their desk id). */
const card = (page: Page, id: string) => page.locator(`.approval[data-call="${id}"]`);

describe("the dashboard in Chromium", { timeout: 120_000 }, () => {
  it("approves with the a key, then shows the call in the history and the metrics", async () => {
    const h = await serve({ approvalTimeoutMs: 300_000 });
    const { page, outside } = await open(h);
    const done = call(h, "w1", "write_file", { path: "a.txt", content: "alpha\nBETA\ngamma\n" });
    const c = card(page, "w1");
    await c.waitFor();
    // A coloured diff with line numbers, the rule "always" would remember, and the time left.
    await expect(c.locator("table.diff tr.add").first().textContent()).resolves.toContain("+BETA");
    await expect(c.locator("table.diff tr.del td.n").first().textContent()).resolves.toBe("2");
    await expect(c.locator("button.always").textContent()).resolves.toContain("write_file");
    await c.locator(".countdown", { hasText: /min .* left/ }).waitFor();
    // The header says the agent waits for a person, not that it is idle, and which workspace this is.
    await page.locator("#agent", { hasText: "waiting for you (1)" }).waitFor();
    await expect(page.locator("#workspace").textContent()).resolves.toBe(ws.dir);

    // The metrics before, to see them change.
    await page.click('nav button[data-tab="metrics"]');
    await page.locator("#metrics-empty").waitFor({ state: "visible" });

    await c.focus();
    await page.keyboard.press("a");
    expect((await done).status).toBe("success");
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
    await page.locator("#approvals", { hasText: "Nothing is waiting." }).waitFor();
    await page.locator("#agent", { hasText: /^(idle|running tools)$/ }).waitFor();

    await page.locator('#metrics tr[data-tool="write_file"] td.calls', { hasText: "1" }).waitFor();
    await page.locator('#metrics tr[data-tool="write_file"] svg.spark rect.bar').waitFor({ state: "attached" });
    // A few more calls, one failing, so the charts (and the screenshot) have something to show.
    for (const p of ["a.txt", "a.txt", "missing.txt", "a.txt"]) await call(h, `r-${calls.length}`, "read_file", { path: p });
    await page.locator('#metrics tr[data-tool="read_file"] td.errors', { hasText: "1" }).waitFor();
    await page.locator('#metrics tr[data-tool="read_file"] td.calls', { hasText: "4" }).waitFor();
    await page.screenshot(SCREENSHOT ? { path: SCREENSHOT.replace(/\.png$/, "-metrics.png") } : {});

    await page.click('nav button[data-tab="history"]');
    const row = page.locator("#history tr.call", { hasText: "write_file" }).first();
    await row.waitFor();
    await expect(row.locator("td.s-success").count()).resolves.toBe(1);
    await row.click();
    await page.locator("#detail .detail-args", { hasText: "BETA" }).waitFor();
    await page.locator("#detail td", { hasText: "tool.approval" }).first().waitFor();
    expect(outside).toEqual([]);
  });

  it("an older answer about the queue that arrives last does not bring back answered requests", async () => {
    const h = await serve({ approvalTimeoutMs: 300_000 });
    const { page } = await open(h);
    const first = call(h, "q1", "write_file", { path: "a.txt", content: "one\n" });
    await card(page, "q1").waitFor();
    // The next reload is held: fetched at once, while q1 (and q2) wait, and handed to the page only later.
    let release!: () => Promise<void>;
    const held = new Promise<void>((resolve) => {
      let holding = false;
      void page.route("**/api/approvals", async (route) => {
        if (holding || route.request().method() !== "GET") return route.continue();
        holding = true;
        const response = await route.fetch();
        release = () => route.fulfill({ response });
        resolve();
      });
    });
    const second = call(h, "q2", "write_file", { path: "a.txt", content: "two\n" });
    // q2's request made the page reload the queue: that is the reload held, so q2 shows no card yet.
    await held;
    // Both are answered; the newer reloads say nothing is waiting.
    for (const id of ["q1", "q2"]) {
      const r = await fetch(`${base(h)}api/approvals/${id}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ approved: false, message: "not now" }),
      });
      expect(r.status).toBe(200);
    }
    expect((await first).status).toBe("rejected");
    expect((await second).status).toBe("rejected");
    await page.locator("#approvals", { hasText: "Nothing is waiting." }).waitFor();
    // Now the stale answer, which still lists both, arrives: it must change nothing.
    await release();
    await page.locator('#approvals[aria-busy="false"]').waitFor({ state: "attached" });
    await expect(page.locator("#approvals .approval").count()).resolves.toBe(0);
    await expect(page.locator("#waiting-count").textContent()).resolves.toBe("");
  });

  it("always with a wider rule typed on purpose: the button shows it, and it covers later calls", async () => {
    for (const f of ["b.txt", "c.md"]) writeFileSync(path.join(ws.dir, f), "old\n");
    const h = await serve();
    const { page } = await open(h);
    const first = call(h, "aw1", "write_file", { path: "a.txt", content: "one\n" });
    const c = card(page, "aw1");
    await c.waitFor();
    await c.locator("button.always", { hasText: "write_file(a.txt)" }).waitFor();
    await c.locator("input.wider").fill("write_file(*.txt)");
    await c.locator("button.always", { hasText: "Always allow write_file(*.txt)" }).click();
    expect((await first).status).toBe("success");
    // Another .txt overwrite needs nobody now; a .md overwrite still asks.
    expect((await call(h, "aw2", "write_file", { path: "b.txt", content: "two\n" })).status).toBe("success");
    expect(readFileSync(path.join(ws.dir, "b.txt"), "utf8")).toBe("two\n");
    const md = call(h, "aw3", "write_file", { path: "c.md", content: "three\n" });
    await card(page, "aw3").waitFor();
    await card(page, "aw3").locator("button.reject").click();
    expect((await md).status).toBe("rejected");
  });

  it("a typed rule that does not cover the call is not kept: only the narrowest one is", async () => {
    writeFileSync(path.join(ws.dir, "b.txt"), "old\n");
    const h = await serve();
    const { page } = await open(h);
    const first = call(h, "nw1", "write_file", { path: "a.txt", content: "one\n" });
    const c = card(page, "nw1");
    await c.waitFor();
    await c.locator("input.wider").fill("write_file(src/**)");
    await c.locator("button.always").click();
    expect((await first).status).toBe("success");
    // a.txt again: the narrowest rule covers it.
    expect((await call(h, "nw2", "write_file", { path: "a.txt", content: "again\n" })).status).toBe("success");
    const other = call(h, "nw3", "write_file", { path: "b.txt", content: "two\n" });
    await card(page, "nw3").waitFor();
    await card(page, "nw3").locator("button.reject").click();
    expect((await other).status).toBe("rejected");
  });

  it("rejects with a message for the model", async () => {
    const h = await serve();
    const { page } = await open(h);
    const done = call(h, "w2", "write_file", { path: "a.txt", content: "nope\n" });
    const c = card(page, "w2");
    await c.waitFor();
    await c.locator("input.message").fill("wrong file, edit b.txt");
    await c.locator("button.reject").click();
    const outcome = await done;
    expect(outcome.status).toBe("rejected");
    expect(outcome.userMessage).toBe("wrong file, edit b.txt");
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("alpha\nbeta\ngamma\n");
    await page.locator("#history tr.call td.s-rejected").first().waitFor();
  });

  it("edits the arguments, refuses what does not validate, and runs the edited call", async () => {
    const h = await serve();
    const { page } = await open(h);
    const done = call(h, "w3", "write_file", { path: "a.txt", content: "first\n" });
    const c = card(page, "w3");
    await c.waitFor();
    await c.focus();
    await page.keyboard.press("e");
    const area = c.locator("textarea.edit");
    await area.waitFor();
    await area.fill("{ not json");
    await c.locator("button.approve-edited").click();
    await c.locator(".edit-note.invalid", { hasText: "Not JSON" }).waitFor();
    await area.fill(JSON.stringify({ content: "no path" }));
    await c.locator("button.check").click();
    await c.locator(".edit-note.invalid", { hasText: "Invalid" }).waitFor();
    await area.fill(JSON.stringify({ path: "a.txt", content: "edited by a person\n" }));
    await c.locator("button.approve-edited").click();
    expect((await done).status).toBe("success");
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("edited by a person\n");
  });

  it("fills the history from the audit log and this server's calls, filters it and pages it", async () => {
    const h = await serve();
    const { page } = await open(h);
    await page.locator("#history tr.call").nth(49).waitFor();
    // Newest first: the last line of the earlier run (seq 120) heads the list.
    await expect(page.locator("#history tr.call").first().getAttribute("data-seq")).resolves.toBe("120");

    // A call of this server (read_file is allowed by a rule) joins at the top.
    expect((await call(h, "live-1", "read_file", { path: "a.txt" })).status).toBe("success");
    await page.locator('#history tr.call[data-seq="121"] td.s-success').waitFor();
    await expect(page.locator("#history tr.call").first().getAttribute("data-seq")).resolves.toBe("121");
    await page.click("#more");
    await page.locator("#history tr.call").nth(99).waitFor();

    await page.selectOption("#f-tool", "shell");
    await page.locator("#history tr.call").first().locator("td", { hasText: "shell" }).waitFor();
    await expect(page.locator("#history tr.call td", { hasText: "read_file" }).count()).resolves.toBe(0);
    await page.selectOption("#f-status", "error");
    // Among shell calls (every third) the errors are every tenth: 0, 30, 60, 90.
    await rows(page, 4);
    await page.selectOption("#f-tool", "");
    await page.selectOption("#f-status", "");
    await page.fill("#f-text", "notes/7.md");
    await rows(page, 1);
    await page.locator("#history tr.call").first().click();
    await page.locator("#detail .detail-result", { hasText: "result 7" }).waitFor();
    await page.locator("#detail", { hasText: "earlier run" }).waitFor();
  });

  it("shows the history for the last filter chosen, whichever answer comes last", async () => {
    const h = await serve();
    const { page } = await open(h);
    await page.locator("#history tr.call").nth(49).waitFor();
    // The next history request is held: its answer (shell calls) reaches the page only later.
    let release!: () => Promise<void>;
    const held = new Promise<void>((resolve) => {
      let holding = false;
      void page.route(/\/api\/history\?/, async (route) => {
        if (holding) return route.continue();
        holding = true;
        const response = await route.fetch();
        release = () => route.fulfill({ response });
        resolve();
      });
    });
    await page.selectOption("#f-tool", "shell");
    await held;
    await page.selectOption("#f-tool", "read_file");
    // The unfiltered list held shell calls too: none left means the read_file answer is shown.
    await page.locator("#history tr.call td", { hasText: "shell" }).first().waitFor({ state: "detached" });
    await release();
    await page.locator('#history[aria-busy="false"]').waitFor({ state: "attached" });
    await expect(page.locator("#history tr.call td", { hasText: "shell" }).count()).resolves.toBe(0);
    await expect(page.locator("#history tr.call td", { hasText: "read_file" }).count()).resolves.toBeGreaterThan(0);
  });

  it("shows tools with their parameters and rules, works with a token, and writes a screenshot", async () => {
    // Bound beyond loopback, as a token requires.
    const h = await serve({ host: "0.0.0.0", token: TOKEN });
    const denied = await fetch(base(h) + "api/history");
    expect(denied.status).toBe(401);
    const { page, outside } = await open(h, `?token=${TOKEN}`);
    expect(page.url()).not.toContain(TOKEN);
    await page.click('nav button[data-tab="tools"]');
    const read = page.locator('.tool[data-tool="read_file"]');
    await read.locator(".rules", { hasText: "allow: read_file" }).waitFor();
    await read.locator("td", { hasText: "path" }).first().waitFor();
    // Descriptions are written for a model in Markdown: `code` shows as code, without its backticks.
    await read.locator(".desc code").first().waitFor();
    expect(await read.locator(".desc").textContent()).not.toContain("`");

    const auth = { Authorization: `Bearer ${TOKEN}` };
    const done = call(h, "w5", "write_file", { path: "a.txt", content: "alpha\nbeta\ngamma\ndelta\n" }, auth);
    await call(h, "r5", "read_file", { path: "a.txt" }, auth);
    await card(page, "w5").waitFor();
    await page.click('nav button[data-tab="history"]');
    await page.locator("#history tr.call td.s-waiting").first().waitFor();
    await page.locator("#agent").waitFor();
    if (SCREENSHOT) mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot(SCREENSHOT ? { path: SCREENSHOT, fullPage: true } : { fullPage: true });

    await card(page, "w5").locator("button.approve").click();
    expect((await done).status).toBe("success");
    expect(outside).toEqual([]);
  });

  it("shows a call another tackle process waits on and answers it; an orphaned one can only be dismissed", async () => {
    const h = await serve();
    const { page } = await open(h);
    // Another process on the same desk (tackle mcp, say), publishing its events as the session does.
    const store = new FileStore(h.desk.store.location.slice("file:".length));
    const other = new Desk(store, { onEvent: (e) => void store.publish([{ type: e.type, data: e }]) });
    const asked = other.approver(
      { toolCallId: "remote-1", tool: "write_file", args: { path: "a.txt" }, effect: "write", reason: "it overwrites a.txt" },
      new AbortController().signal,
    );
    calls.push(asked);
    const remote = card(page, "remote-1");
    await remote.locator("text=Asked by another tackle process").waitFor();
    await remote.focus();
    await page.keyboard.press("a");
    expect(await asked).toMatchObject({ approved: true, shared: true });
    await remote.waitFor({ state: "detached" });
    await store.post({
      id: "desk_gone",
      request: { toolCallId: "gone-1", tool: "shell", args: { command: "make" }, effect: "execute", reason: "it runs make" },
      instance: "elsewhere:1:dead",
      askedAt: Date.now(),
      expiresAt: Date.now() + 60_000,
    });
    const orphan = card(page, "gone-1");
    await orphan.locator("text=is gone: nothing will run this call").waitFor();
    expect(await orphan.locator("button").allTextContents()).toEqual(["Dismiss"]);
    await orphan.locator("button", { hasText: "Dismiss" }).click();
    await orphan.waitFor({ state: "detached" });
    expect((await h.desk.waiting()).length).toBe(0);
    await other.close();
    await store.close();
  });
});
