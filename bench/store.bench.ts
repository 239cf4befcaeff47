// The shared store (issue 28), on loopback, each figure a ratio or a count from this run:
//   per-call time of one instance on PostgreSQL vs the file store (goal ≤ 1.25x);
//   calls/s of two instances behind a round-robin proxy vs one behind the same proxy (goal ≥ 1.5x);
//   an answer on B until the call waiting on A returns: p50 / p99 (goal p99 < 1 s);
//   100 calls answered twice at once, through A and B: wins and refusals (goal 100 and 100);
//   kill -9 of one of two instances under load: results without their audit rows, calls run twice,
//   its waiting calls orphaned (goal 0, 0, all).
// Needs Debian's postgresql package; without it only the file store's figure is printed.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { startServe } from "../src/serve/server.js";
import { postgresBin, startPostgres, type Postgres } from "../test/support/postgres.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const CLI = path.resolve(import.meta.dirname, "../dist/cli/main.cjs");

const tmp = mkdtempSync(path.join(os.tmpdir(), "tackle-store-bench-"));
process.env.XDG_STATE_HOME = path.join(tmp, "state");
const ws = path.join(tmp, "ws");
const children: ChildProcess[] = [];
let server: Postgres | undefined;

// However the run ends (an error out of a top-level await, Ctrl-C, a reader that closed the pipe),
// no instance or PostgreSQL server is left running and the temporary folder goes: `finally` does not
// run then, this does (every step synchronous, as an exit handler must be).
function leaveNothing(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  server?.stop().catch(() => undefined);
  server = undefined;
  rmSync(tmp, { recursive: true, force: true });
}
process.once("exit", leaveNothing);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(1));

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

async function post(url: string, route: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(new URL(route, url), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}
async function get(url: string, route: string): Promise<any> {
  return (await fetch(new URL(route, url))).json();
}
async function waitFor<T>(check: () => Promise<T | undefined | false>): Promise<T> {
  for (;;) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Read-only calls, each on its own file so the result cache does not answer them. */
const readCall = (i: number) => ({ name: "read_file", args: { path: `f${i % 200}.txt`, offset: 1 + (i % 3) } });

async function perCallMs(url: string): Promise<number> {
  for (let i = 0; i < 50; i++) await post(url, "/api/calls", readCall(i));
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    const r = await post(url, "/api/calls", readCall(i));
    times.push(performance.now() - t0);
    if (r.json.status !== "success") throw new Error(JSON.stringify(r.json));
  }
  return median(times);
}

/** A small round-robin HTTP proxy in front of `targets`. */
function proxy(targets: string[]): Promise<{ url: string; server: Server }> {
  let next = 0;
  const s = createServer((req, res) => {
    const target = new URL(targets[next++ % targets.length]!);
    const out = request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: target.host },
        agent: keepAlive,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on("error", () => res.writeHead(502).end());
    req.pipe(out);
  });
  return new Promise((resolve) =>
    s.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(s.address() as { port: number }).port}/`, server: s })),
  );
}
import { Agent } from "node:http";
const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });

async function callsPerSecond(url: string, seconds = 4): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      for (let i = w; performance.now() < end; i += CONCURRENCY) {
        const r = await post(url, "/api/calls", readCall(i));
        if (r.json.status === "success") done++;
      }
    }),
  );
  return done / seconds;
}

/** `tackle serve` as its own process on the store. */
function instance(store: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--no-token", "--store", store, "--workspace", ws], {
    stdio: ["ignore", "ignore", "pipe"],
    env: process.env,
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr!.on("data", (d) => {
      err += String(d);
      const m = /serving on (http:\/\/\S+)/.exec(err);
      if (m) resolve({ url: `${m[1]}/`, child });
    });
    child.on("exit", () => reject(new Error(err)));
  });
}

try {
  writeFileSync(path.join(tmp, ".keep"), "");
  (await import("node:fs")).mkdirSync(ws);
  for (let i = 0; i < 200; i++) writeFileSync(path.join(ws, `f${i}.txt`), `line 1\nline 2 of ${i}\nline 3\n`);
  for (let i = 0; i < 100; i++) writeFileSync(path.join(ws, `w${i}.txt`), "old\n");

  const onFiles = await startServe({ workspace: ws, port: 0, mcp: false });
  const fileMs = await perCallMs(onFiles.url);
  await onFiles.close();
  console.log(`per call, file store: median ${fileMs.toFixed(2)} ms`);

  const found = postgresBin();
  if ("skip" in found) {
    console.log(`PostgreSQL figures skipped: ${found.skip}`);
  } else {
    server = await startPostgres(found.bin);
    const url = server.url;
    const onPg = await startServe({ workspace: ws, port: 0, mcp: false, store: url });
    const pgMs = await perCallMs(onPg.url);
    await onPg.close();
    console.log(`per call, PostgreSQL: median ${pgMs.toFixed(2)} ms = ${(pgMs / fileMs).toFixed(2)}x the file store (goal <= 1.25x)`);

    // Throughput: the same proxy in front of one instance, then two (separate processes).
    const a = await instance(url);
    const b = await instance(url);
    const one = await proxy([a.url]);
    const two = await proxy([a.url, b.url]);
    await callsPerSecond(one.url, 1);
    const oneRate = await callsPerSecond(one.url);
    const twoRate = await callsPerSecond(two.url);
    one.server.close();
    two.server.close();
    console.log(
      `read-only calls/s, ${CONCURRENCY} clients: one instance ${oneRate.toFixed(0)}, two behind round-robin ${twoRate.toFixed(0)} = ` +
        `${(twoRate / oneRate).toFixed(2)}x (goal >= 1.5x; ${os.cpus().length} CPUs shared with the proxy, the clients and PostgreSQL)`,
    );

    // An answer on B resumes the call waiting on A.
    const latencies: number[] = [];
    for (let i = 0; i < 50; i++) {
      const call = post(a.url, "/api/calls", { name: "write_file", args: { path: `w${i}.txt`, content: `new ${i}\n` }, id: `lat-${i}` });
      const waiting = await waitFor(async () => (await get(b.url, "/api/approvals")).find((w: any) => w.toolCallId === `lat-${i}`));
      const t0 = performance.now();
      await post(b.url, `/api/approvals/${waiting.id}/approve`, {});
      await call;
      latencies.push(performance.now() - t0);
    }
    console.log(
      `answer on B until the call on A returns: p50 ${median(latencies).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms (goal p99 < 1000 ms)`,
    );

    // 100 waiting calls, each answered through A and through B at the same moment.
    const calls = Array.from({ length: 100 }, (_, i) =>
      post(a.url, "/api/calls", { name: "write_file", args: { path: `w${i}.txt`, content: `twice ${i}\n` }, id: `dbl-${i}` }),
    );
    const waiting: any[] = await waitFor(async () => {
      const list = (await get(b.url, "/api/approvals")).filter((w: any) => String(w.toolCallId).startsWith("dbl-"));
      return list.length === 100 ? list : undefined;
    });
    const answers = await Promise.all(
      waiting.flatMap((w) => [
        post(a.url, `/api/approvals/${w.id}/approve`, { by: "a" }),
        post(b.url, `/api/approvals/${w.id}/reject`, { by: "b" }),
      ]),
    );
    await Promise.all(calls);
    const wins = answers.filter((r) => r.status === 200).length;
    const refusals = answers.filter((r) => r.status === 409).length;
    console.log(`100 calls answered twice at once: ${wins} wins, ${refusals} refusals (goal 100 and 100)`);

    // kill -9 of A under load: every result received has its audit rows, nothing ran twice, A's waiting calls orphaned.
    const received: Array<{ id: string; status: string }> = [];
    let stop = false;
    let n = 0;
    const load = Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (!stop) {
          const id = `load-${n++}`;
          const target = n % 2 ? a.url : b.url;
          try {
            const r = await post(target, "/api/calls", { ...readCall(n), id });
            received.push({ id, status: r.json.status });
          } catch {
            // the killed instance's connections fail: those calls have no result to account for
          }
        }
      }),
    );
    const orphans = Array.from({ length: 5 }, (_, i) =>
      post(a.url, "/api/calls", { name: "write_file", args: { path: `w${i}.txt`, content: "never\n" }, id: `orphan-${i}` }).catch(
        () => undefined,
      ),
    );
    await waitFor(
      async () => (await get(b.url, "/api/approvals")).filter((w: any) => String(w.toolCallId).startsWith("orphan-")).length === 5,
    );
    await new Promise((r) => setTimeout(r, 1000));
    a.child.kill("SIGKILL");
    await new Promise((r) => setTimeout(r, 1000));
    stop = true;
    await load;
    await Promise.all(orphans);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const rows = (
      await db.query<{ tool_call_id: string; starts: string; ends: string }>(
        `SELECT tool_call_id, count(*) FILTER (WHERE phase = 'start') AS starts, count(*) FILTER (WHERE phase = 'end') AS ends
           FROM tackle_audit WHERE tool_call_id LIKE 'load-%' GROUP BY tool_call_id`,
      )
    ).rows;
    await db.end();
    const audited = new Map(rows.map((r) => [r.tool_call_id, r]));
    const missing = received.filter((r) => Number(audited.get(r.id)?.ends ?? 0) < 1).length;
    const twice = rows.filter((r) => Number(r.starts) > 1).length;
    const orphaned = (await get(b.url, "/api/approvals")).filter(
      (w: any) => String(w.toolCallId).startsWith("orphan-") && w.orphaned,
    ).length;
    console.log(
      `kill -9 under load (${received.length} results received): ${missing} without their audit row, ${twice} calls run twice, ` +
        `${orphaned} of 5 waiting calls orphaned (goal 0, 0, 5)`,
    );
  }
} finally {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await server?.stop();
  server = undefined;
  rmSync(tmp, { recursive: true, force: true });
}
