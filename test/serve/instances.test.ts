import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServe, type ServeHandle } from "../../src/serve/server.js";
import { CLI } from "../cli/run-cli.js";
import { postgresSuite, startPostgres, type Postgres } from "../support/postgres.js";
import { tempDir } from "../support/tools.js";

/*
 * Several tackle instances on one PostgreSQL store act as one: a call waiting on A is answered
 * through B, a rule written on B applies on A, B's event stream replays A's events by id, and an
 * instance killed with its calls waiting leaves them orphaned, never approved.
 */

const suite = postgresSuite("tackle instances on one PostgreSQL store");

async function api(handle: { url: string }, route: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(new URL(route, handle.url), {
    method: body === undefined ? "GET" : "POST",
    headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as any };
}

async function waitFor<T>(check: () => Promise<T | undefined | false>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(suite.skip)(suite.title, () => {
  let server: Postgres;
  let ws: { dir: string; cleanup(): void };
  let a: ServeHandle;
  let b: ServeHandle;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    server = await startPostgres(suite.bin);
    ws = tempDir("tackle-instances-");
    for (const name of ["a.txt", "b.txt", "c.txt", "d.txt"]) writeFileSync(path.join(ws.dir, name), "old\n");
    // The calls here replace files they never read, to be asked about it.
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ staleEditGuard: false }));
    a = await startServe({ workspace: ws.dir, port: 0, mcp: false, store: server.url });
    b = await startServe({ workspace: ws.dir, port: 0, mcp: false, store: server.url });
  }, 300_000);
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    await a?.close();
    await b?.close();
    await server?.stop();
    ws?.cleanup();
  }, 180_000);

  it("a call waiting on A is approved through B, and B's stream replays A's events after the id it was given", async () => {
    const before = await a.desk.store.lastEventId();
    const call = api(a, "/api/calls", { name: "write_file", args: { path: "a.txt", content: "from A\n" }, id: "call-a" });
    const waiting = await waitFor(async () => (await api(b, "/api/approvals")).json.find((w: any) => w.toolCallId === "call-a"));
    expect(waiting).toMatchObject({ orphaned: false, instance: a.desk.store.instance });
    expect((await api(b, `/api/approvals/${waiting.id}/approve`, { by: "ann" })).json).toMatchObject({ ok: true });
    expect((await call).json).toMatchObject({ status: "success" });
    expect(readFileSync(path.join(ws.dir, "a.txt"), "utf8")).toBe("from A\n");
    const again = await api(a, `/api/approvals/${waiting.id}/approve`, { by: "bob" });
    expect(again.status).toBe(409);
    expect(again.json.error).toMatch(/approved by ann/);

    // B's event stream, resumed from before the call: A's events, in order, each with its id.
    const controller = new AbortController();
    const res = await fetch(new URL("/api/events", b.url), { headers: { "Last-Event-ID": before! }, signal: controller.signal });
    const reader = res.body!.getReader();
    let text = "";
    while (!/event: tool\.result\ndata: [^\n]*call-a/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const types = [...text.matchAll(/id: (\d+)\nevent: (\S+)\ndata: (.*)\n/g)].filter((m) => m[3]!.includes("call-a"));
    expect(types.map((m) => m[2])).toEqual(expect.arrayContaining(["tool.call", "approval.requested", "approval.resolved", "tool.result"]));
    const ids = types.map((m) => BigInt(m[1]!));
    expect([...ids].sort((x, y) => (x < y ? -1 : 1))).toEqual(ids);
    expect((await api(b, "/api/events", undefined, { "Last-Event-ID": "x; drop table" })).status).toBe(400);
    // B's metrics and history count A's call.
    const metrics = await waitFor(async () =>
      (await api(b, "/api/metrics")).json.find((m: any) => m.tool === "write_file" && m.calls >= 1),
    );
    expect(metrics.successes).toBeGreaterThanOrEqual(1);
    expect((await api(b, "/api/history")).json.items.map((c: any) => c.toolCallId)).toContain("call-a");
  });

  it("a rule a person writes on B applies to calls on A", async () => {
    const kept = await api(b, "/api/rules/shared", { rule: "write_file(b.txt)", by: "ann" });
    expect(kept.json).toMatchObject({ rule: "write_file(b.txt)", origin: "person", by: "ann" });
    expect((await api(b, "/api/rules/shared", { rule: "write_file(" })).status).toBe(400);
    // Once A's runner has read it (within a second or so; later on a busy machine), the call runs
    // without anyone asked. Made before, the call would wait for a person.
    await waitFor(async () =>
      a.desk
        .sharedRules()
        .list()
        .some((r) => r.source === "write_file(b.txt)"),
    );
    const outcome = (await api(a, "/api/calls", { name: "write_file", args: { path: "b.txt", content: "ruled\n" } }, {})).json;
    expect(outcome.status).toBe("success");
    expect(outcome.approvedBy).toBe("user");
    expect((await api(a, "/api/rules")).json.shared.map((r: any) => r.rule)).toContain("write_file(b.txt)");
    const removed = await fetch(new URL(`/api/rules/shared/${kept.json.id}`, b.url), { method: "DELETE" });
    expect(removed.status).toBe(200);
  });

  it("an instance killed while its call waits leaves it orphaned: it cannot be approved, and rejecting clears it", async () => {
    const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--no-token", "--store", server.url, "--workspace", ws.dir], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let err = "";
      child.stderr!.on("data", (d) => {
        err += String(d);
        const m = /serving on (http:\/\/\S+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.on("exit", () => reject(new Error(`tackle serve exited: ${err}`)));
    });
    void api({ url }, "/api/calls", { name: "write_file", args: { path: "c.txt", content: "never\n" }, id: "call-c" }).catch(
      () => undefined,
    );
    const waiting = await waitFor(async () => (await api(b, "/api/approvals")).json.find((w: any) => w.toolCallId === "call-c"));
    expect(waiting.orphaned).toBe(false);
    child.kill("SIGKILL");
    const orphan = await waitFor(async () =>
      (await api(b, "/api/approvals")).json.find((w: any) => w.toolCallId === "call-c" && w.orphaned),
    );
    const approve = await api(b, `/api/approvals/${orphan.id}/approve`, {});
    expect(approve.status).toBe(409);
    expect(approve.json.error).toMatch(/is gone, so nothing would run this call/);
    expect((await api(b, `/api/approvals/${orphan.id}/reject`, {})).json).toMatchObject({ ok: true });
    expect((await api(b, "/api/approvals")).json.find((w: any) => w.toolCallId === "call-c")).toBeUndefined();
    expect(readFileSync(path.join(ws.dir, "c.txt"), "utf8")).toBe("old\n");
  }, 120_000);
});
