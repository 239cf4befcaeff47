// Streamable HTTP throughput: `tackle mcp --http` (dist/cli/main.cjs, every tool, its token) against a
// bare server on the same SDK handler and Node adapter with one unchecked read tool
// (test/fixtures/mcp/bench-bare-http-server.mjs), in the same run. 8 and 32 clients, each with its
// own session, call read_file on a 200-line file back to back: 2025-era clients (the 1.x SDK, as
// most clients are today) and 2026-era ones (the 2.x SDK, one request per call); rounds alternate
// the servers and the figure is the median of calls per second. Beside it, the CPU a call cost the
// clients' process and the server: on a 2-core machine the clients share the cores with the server,
// so when they are the busier side, the figure measures them as much as the server. The bare server
// answers a 2025-era call as the SDK does, as an event stream; tackle answers one that sends
// nothing before its result as one JSON body (src/mcp/server/json-when-whole.ts), which the
// 1.x SDK client reads for less.
// Goal (issue 31): tackle >= 1.0x the bare server's calls/s at 8 and at 32 clients.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(root, "dist/cli/main.cjs");
if (!existsSync(cli)) throw new Error("Build first (npm run build): the benchmark runs tackle from dist.");
const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-http-bench-")));
const FILE = "sample.txt";
writeFileSync(path.join(dir, FILE), Array.from({ length: 200 }, (_, i) => `line ${i + 1}: the quick brown fox\n`).join(""));
const TOKEN = "bench-token-0123456789abcdef";

interface Target {
  label: string;
  url: string;
  headers: Record<string, string>;
  child: ChildProcess;
}

/** Starts a server and resolves with the URL it prints (on stdout for the bare one, stderr for tackle). */
function start(label: string, args: string[], from: "stdout" | "stderr", headers: Record<string, string>): Promise<Target> {
  const child = spawn(process.execPath, args, { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let text = "";
    const stream = from === "stdout" ? child.stdout! : child.stderr!;
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text)?.[1];
      if (url) resolve({ label, url, headers, child });
    });
    child.on("exit", (code) => reject(new Error(`${label} exited (${code}) before listening: ${text}`)));
  });
}

type Era = "2025" | "2026";
type AnyClient = Pick<Client, "callTool" | "close">;

async function connect(t: Target, era: Era): Promise<AnyClient> {
  const requestInit = { headers: t.headers };
  if (era === "2025") {
    const client = new Client({ name: "http-bench", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(t.url), { requestInit }));
    return client;
  }
  const client = new ModernClient({ name: "http-bench", version: "2.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new ModernHttp(new URL(t.url), { requestInit }));
  return client as unknown as AnyClient;
}

/** CPU time a process has used, in µs (Linux: /proc). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100;

/** CPU per call, in µs, of the clients' process and of each server, over the measured rounds. */
const cpu = new Map<Target, { client: number; server: number; calls: number }>();

/** N clients call back to back for `ms`; calls per second over all of them. */
async function throughput(t: Target, era: Era, n: number, ms: number, measured = true): Promise<number> {
  const clients = await Promise.all(Array.from({ length: n }, () => connect(t, era)));
  for (const c of clients) await c.callTool({ name: "read_file", arguments: { path: FILE } });
  let calls = 0;
  const client0 = process.cpuUsage();
  const server0 = cpuOf(t.child.pid!);
  const started = performance.now();
  const until = started + ms;
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < until) {
        const r = await c.callTool({ name: "read_file", arguments: { path: FILE } });
        if (r.isError) throw new Error(`${t.label}: ${JSON.stringify(r.content)}`);
        calls++;
      }
    }),
  );
  const elapsed = performance.now() - started;
  if (measured) {
    const used = process.cpuUsage(client0);
    const sum = cpu.get(t) ?? { client: 0, server: 0, calls: 0 };
    cpu.set(t, {
      client: sum.client + used.user + used.system,
      server: sum.server + cpuOf(t.child.pid!) - server0,
      calls: sum.calls + calls,
    });
  }
  await Promise.all(clients.map((c) => c.close()));
  return (calls * 1000) / elapsed;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ROUNDS = 5;
const DURATION_MS = 2_000;
const targets: Target[] = [];
try {
  targets.push(await start("bare SDK server", [path.join(root, "test/fixtures/mcp/bench-bare-http-server.mjs"), dir], "stdout", {}));
  targets.push(
    await start("tackle mcp --http", [cli, "mcp", "--http", "0", "--token", TOKEN, "--workspace", dir], "stderr", {
      Authorization: `Bearer ${TOKEN}`,
    }),
  );
  console.log(`read_file of a 200-line file, ${ROUNDS} rounds of ${DURATION_MS / 1000} s per server and client count\n`);
  console.log(`${"server".padEnd(24)} ${"clients".padStart(12)} ${"calls/s".padStart(9)}`);
  const ratios: string[] = [];
  for (const era of ["2025", "2026"] as const) {
    for (const n of [8, 32]) {
      const samples = new Map(targets.map((t) => [t, [] as number[]]));
      for (const t of targets) await throughput(t, era, n, 500, false); // warm-up
      cpu.clear();
      for (let round = 0; round < ROUNDS; round++) {
        for (const t of round % 2 ? [...targets].reverse() : targets) samples.get(t)!.push(await throughput(t, era, n, DURATION_MS));
      }
      const who = `${n} x ${era}`;
      for (const t of targets) {
        const used = cpu.get(t)!;
        const perCall = (us: number) => `${(us / used.calls).toFixed(0)} µs`;
        const rate = median(samples.get(t)!).toFixed(0).padStart(9);
        const spent = `CPU a call: clients ${perCall(used.client)}, server ${perCall(used.server)}`;
        console.log(`${t.label.padEnd(24)} ${who.padStart(12)} ${rate}   ${spent}`);
      }
      const ratio = median(samples.get(targets[1]!)!) / median(samples.get(targets[0]!)!);
      ratios.push(`  ${who} clients: tackle ${ratio.toFixed(2)}x the bare server's calls/s (goal >= 1.0x) ${ratio >= 1 ? "OK" : "MISSED"}`);
    }
  }
  console.log(`\n${ratios.join("\n")}`);
} finally {
  for (const t of targets) t.child.kill();
  rmSync(dir, { recursive: true, force: true });
}
