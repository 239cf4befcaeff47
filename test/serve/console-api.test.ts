// The API the dashboard's console reads: history, edited-argument checks, rules, state, and what
// "always" would remember.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startServe, type ServeHandle } from "../../src/serve/server.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
const handles: ServeHandle[] = [];
const calls: Array<Promise<unknown>> = [];

beforeEach(() => {
  ws = tempDir();
  writeFileSync(path.join(ws.dir, "a.txt"), "alpha\n");
  writeFileSync(
    path.join(ws.dir, "tackle.config.json"),
    JSON.stringify({ log: "audit.jsonl", permissions: { allow: ["read_file"], deny: ["shell(rm *)"] } }),
  );
});
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
  await Promise.allSettled(calls.splice(0));
  ws.cleanup();
});

async function serve(): Promise<ServeHandle> {
  const h = await startServe({ port: 0, workspace: ws.dir, mcp: false });
  handles.push(h);
  return h;
}

async function getJson(h: ServeHandle, p: string): Promise<{ status: number; body: any }> {
  const r = await fetch(h.url + p.replace(/^\//, ""));
  return { status: r.status, body: await r.json() };
}

async function postJson(h: ServeHandle, p: string, body: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(h.url + p.replace(/^\//, ""), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

function startCall(h: ServeHandle, id: string, name: string, args: unknown): Promise<{ status: number; body: any }> {
  const p = postJson(h, "/api/calls", { name, id, args });
  calls.push(p);
  return p;
}

/** Polls until the call waits for a person; fails if it settles first (it never asked). */
async function waitForApproval(h: ServeHandle, id: string, call: Promise<unknown>): Promise<any> {
  let settled = false;
  void call.finally(() => (settled = true));
  for (;;) {
    if (settled) throw new Error(`${id} finished without asking for approval`);
    const found = ((await getJson(h, "/api/approvals")).body as Array<{ toolCallId: string }>).find((a) => a.toolCallId === id);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("the console API", () => {
  it("lists calls in the history with filters, opens one, and refuses bad queries", async () => {
    const h = await serve();
    expect((await startCall(h, "r1", "read_file", { path: "a.txt" })).body.status).toBe("success");
    expect((await startCall(h, "r2", "read_file", { path: "missing.txt" })).body.status).toBe("error");
    const all = (await getJson(h, "/api/history")).body;
    expect(all.items.map((c: { toolCallId: string }) => c.toolCallId)).toEqual(["r2", "r1"]);
    expect(all.tools).toEqual(["read_file"]);
    const errors = (await getJson(h, "/api/history?status=error")).body;
    expect(errors.items).toHaveLength(1);
    const one = await getJson(h, `/api/history/${all.items[1].seq}`);
    expect(one.body).toMatchObject({ toolCallId: "r1", args: { path: "a.txt" }, status: "success", approvedBy: "config" });
    expect(one.body.result).toContain("alpha");
    expect((await getJson(h, "/api/history?status=odd")).status).toBe(400);
    expect((await getJson(h, "/api/history?limit=0")).status).toBe(400);
    expect((await getJson(h, "/api/history/999")).status).toBe(404);
    const paged = (await getJson(h, "/api/history?limit=1")).body;
    expect(paged.next).toBe(all.items[0].seq);
    expect((await getJson(h, `/api/history?limit=1&before=${paged.next}`)).body.items[0].toolCallId).toBe("r1");
  });

  it("checks edited arguments against the tool's schema", async () => {
    const h = await serve();
    const done = startCall(h, "w1", "write_file", { path: "a.txt", content: "x" });
    await waitForApproval(h, "w1", done);
    expect((await postJson(h, "/api/approvals/w1/check", { args: { path: "a.txt", content: "y" } })).body).toEqual({ valid: true });
    const bad = (await postJson(h, "/api/approvals/w1/check", { args: { content: 1 } })).body;
    expect(bad.valid).toBe(false);
    expect(bad.error).toMatch(/path|content/);
    expect((await postJson(h, "/api/approvals/nope/check", { args: {} })).status).toBe(404);
    await postJson(h, "/api/approvals/w1/reject", {});
    expect((await done).body.status).toBe("rejected");
  });

  it("always for a file tool keeps the narrowest rule, as the terminal's does; a wider one only on purpose", async () => {
    const h = await serve();
    writeFileSync(path.join(ws.dir, "notes.txt"), "old\n");
    const done = startCall(h, "f1", "write_file", { path: "notes.txt", content: "new\n" });
    const waiting = await waitForApproval(h, "f1", done);
    expect(waiting.alwaysRules).toEqual(["write_file(notes.txt)"]);
    await postJson(h, "/api/approvals/f1/approve", { always: true, alwaysRule: "write_file(elsewhere/**)" });
    await done;
    expect((await getJson(h, "/api/rules")).body.tools.write_file.always).toEqual(["write_file(notes.txt)"]);
  });

  it("shows the rule always would remember, the clock, the agent's state and the rules per tool", async () => {
    const h = await serve();
    const done = startCall(h, "s1", "shell", { command: "touch b.txt" });
    const waiting = await waitForApproval(h, "s1", done);
    expect(waiting.alwaysRules).toEqual(["shell(touch b.txt)"]);
    expect(waiting.timeoutMs).toBe(600_000);
    expect(waiting.remainingMs).toBeGreaterThan(0);
    const state = (await getJson(h, "/api/state")).body;
    expect(state).toMatchObject({ waiting: 1, active: [{ toolCallId: "s1", status: "waiting" }] });
    const rules = (await getJson(h, "/api/rules")).body;
    expect(rules.approval).toBe("safe");
    expect(rules.tools.read_file.allow).toEqual(["read_file"]);
    expect(rules.tools.shell.deny).toEqual(["shell(rm *)"]);
    await postJson(h, "/api/approvals/s1/approve", { always: true });
    await done;
    expect((await getJson(h, "/api/rules")).body.tools.shell.always).toEqual(["shell(touch b.txt)"]);
    expect((await getJson(h, "/api/state")).body).toMatchObject({ state: "idle", active: [], waiting: 0 });
    expect(Object.keys((await getJson(h, "/api/metrics/recent")).body)).toEqual(["shell"]);
  });
});
