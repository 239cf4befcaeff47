// Reading one file over MCP stdio with the same 1.x SDK client, in one run:
//   - tackle's MCP server (runMcpServer over a registry, library level) with a read tool that does
//     what the bare server's does: tackle's own layer (runner, policy, MCP mapping) alone;
//   - the same server with the real read_file (line numbers, structured output, workspace
//     boundary), cache on and off;
//   - `tackle mcp` itself (dist/cli/main.cjs), when the build has the subcommand;
//   - the reference filesystem server (@modelcontextprotocol/server-filesystem, read_text_file);
//   - a bare server on the same SDK entry tackle uses that returns the file with no checks.
// Goals: at least as fast as the reference server, `tackle mcp` 0.9x its p50 (issue 31); tackle's
// layer < 5% over the bare server.
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-mcp-bench-")));
// Removed however the run ends: a server that fails to answer throws out of the top level.
process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
const FILE = "sample.txt";
const lines = Array.from({ length: 200 }, (_, i) => `line ${i + 1}: ${"the quick brown fox jumps over the lazy dog ".repeat(1)}`);
writeFileSync(path.join(dir, FILE), `${lines.join("\n")}\n`);

interface Target {
  label: string;
  command: string;
  args: string[];
  tool: string;
  toolArgs: Record<string, unknown>;
}

// Every server runs as plain JavaScript (tackle from dist, which `npm run bench` builds first), so
// no one pays for a TypeScript loader's helpers.
const dist = path.join(root, "dist/mcp/server/server.js");
if (!existsSync(dist)) throw new Error("Build first (npm run build): the benchmark runs tackle from dist.");
const targets: Target[] = [
  {
    label: "bare SDK server (no checks)",
    command: process.execPath,
    args: [path.join(root, "test/fixtures/mcp/bench-bare-server.mjs"), dir],
    tool: "read_file",
    toolArgs: { path: FILE },
  },
  {
    label: "reference server-filesystem",
    command: process.execPath,
    args: [path.join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), dir],
    tool: "read_text_file",
    toolArgs: { path: path.join(dir, FILE) },
  },
  {
    label: "tackle layer (bare read tool, no cache)",
    command: process.execPath,
    args: [path.join(root, "test/fixtures/mcp/bench-tackle-server.mjs"), dir, "--no-cache", "--bare-tool"],
    tool: "read_file",
    toolArgs: { path: FILE },
  },
  {
    label: "tackle read_file (cache on)",
    command: process.execPath,
    args: [path.join(root, "test/fixtures/mcp/bench-tackle-server.mjs"), dir],
    tool: "read_file",
    toolArgs: { path: FILE },
  },
  {
    label: "tackle read_file (cache off)",
    command: process.execPath,
    args: [path.join(root, "test/fixtures/mcp/bench-tackle-server.mjs"), dir, "--no-cache"],
    tool: "read_file",
    toolArgs: { path: FILE },
  },
];

const cli = path.join(root, "dist/cli/main.cjs");
const hasCli =
  existsSync(cli) && /^\s+mcp\b/m.test(spawnSync(process.execPath, [cli, "--help"], { encoding: "utf8", timeout: 20_000 }).stdout ?? "");
if (hasCli) {
  targets.push({
    label: "tackle mcp (CLI, all tools)",
    command: process.execPath,
    args: [cli, "mcp", "--workspace", dir],
    tool: "read_file",
    toolArgs: { path: FILE },
  });
} else {
  console.log("(dist/cli/main.cjs has no `mcp` subcommand yet: measuring the library-level server only)");
}

interface Connected {
  target: Target;
  client: Client;
  samples: number[];
}

async function open(target: Target): Promise<Connected> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: target.command,
      args: target.args,
      cwd: root,
      stderr: process.env.BENCH_DEBUG ? "inherit" : "ignore",
    }),
  );
  const result = await client.callTool({ name: target.tool, arguments: target.toolArgs });
  if (result.isError) throw new Error(`${target.label}: ${JSON.stringify(result.content)}`);
  return { target, client, samples: [] };
}

const WARMUP = 300;
const CALLS = 3000;

const connected: Connected[] = [];
for (const t of targets) connected.push(await open(t));
for (const c of connected) for (let i = 0; i < WARMUP; i++) await c.client.callTool({ name: c.target.tool, arguments: c.target.toolArgs });
/**
 * `calls` calls to each server, round-robin, one server after the other, so machine noise (the
 * machine is shared) lands on every server alike instead of on whichever ran during a busy spell.
 * Each round starts one server later: a server's p50 moves by 1-2% with the server before it
 * (measured), so none keeps the same neighbour. Each call's time goes to `record`; a call answered
 * with an error stops the run.
 */
async function roundRobin(
  servers: Connected[],
  calls: number,
  argsOf: (c: Connected, i: number) => Record<string, unknown>,
  record: (c: Connected, ms: number) => void,
): Promise<void> {
  for (let i = 0; i < calls; i++) {
    for (let k = 0; k < servers.length; k++) {
      const c = servers[(i + k) % servers.length]!;
      const start = performance.now();
      const r = await c.client.callTool({ name: c.target.tool, arguments: argsOf(c, i) });
      record(c, performance.now() - start);
      if (r.isError) throw new Error(`${c.target.label}: ${JSON.stringify(r.content)}`);
    }
  }
}

await roundRobin(
  connected,
  CALLS,
  (c) => c.target.toolArgs,
  (c, ms) => c.samples.push(ms),
);

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const stats = new Map<string, { p50: number; p95: number; perSecond: number }>();
console.log(`file: ${lines.length} lines; ${CALLS} sequential calls per server (round-robin) after ${WARMUP} warm-up calls\n`);
console.log(`${"server".padEnd(38)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)} ${"calls/s".padStart(9)}`);
for (const c of connected) {
  const sorted = [...c.samples].sort((a, b) => a - b);
  const total = c.samples.reduce((a, b) => a + b, 0);
  const s = { p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), perSecond: (c.samples.length / total) * 1000 };
  stats.set(c.target.label, s);
  console.log(
    `${c.target.label.padEnd(38)} ${s.p50.toFixed(3).padStart(8)} ${s.p95.toFixed(3).padStart(8)} ${s.perSecond.toFixed(0).padStart(9)}`,
  );
}

const bare = stats.get("bare SDK server (no checks)")!;
const reference = stats.get("reference server-filesystem")!;
console.log("");
for (const [label, s] of stats) {
  if (!label.startsWith("tackle")) continue;
  const overBare = (s.p50 / bare.p50 - 1) * 100;
  console.log(
    `${label}: p50 ${(s.p50 / reference.p50).toFixed(2)}x the reference server (goal <= ${label.startsWith("tackle mcp") ? "0.90" : "1.00"}), ` +
      `${overBare >= 0 ? "+" : ""}${overBare.toFixed(1)}% (${((s.p50 - bare.p50) * 1000).toFixed(0)} µs) over the bare server (goal < 5%); ` +
      `throughput ${(s.perSecond / reference.perSecond).toFixed(2)}x reference, ${(s.perSecond / bare.perSecond).toFixed(2)}x bare`,
  );
}

// The p50 of each thousand calls in turn: the first thousands run while V8 is still optimising
// each server's code (a function called once per call is optimised only after some hundreds to
// thousands of calls), the later ones show the servers warmed up.
console.log("\np50 ms by 1,000 calls, in order (JIT warm-up, then warmed up):");
const p50Of = (samples: number[]) =>
  quantile(
    [...samples].sort((a, b) => a - b),
    0.5,
  );
for (const c of connected) {
  const parts: string[] = [];
  for (let at = 0; at + 1000 <= c.samples.length; at += 1000) parts.push(p50Of(c.samples.slice(at, at + 1000)).toFixed(3));
  console.log(`  ${c.target.label.padEnd(38)} ${parts.join("  ")}`);
}

// The same read of a different file at every call, as a model reads a codebase: no cache can
// answer (tackle's keeps the last results), and each server opens, reads and numbers the file anew.
const FRESH_CALLS = 2000;
for (let f = 0; f < WARMUP + FRESH_CALLS; f++) writeFileSync(path.join(dir, `fresh-${f}.txt`), `${lines.join("\n")}\n`);
const fresh = connected.filter((c) =>
  ["bare SDK server (no checks)", "reference server-filesystem", "tackle mcp (CLI, all tools)"].includes(c.target.label),
);
const freshSamples = new Map<Connected, number[]>(fresh.map((c) => [c, []]));
const freshArgs = (c: Connected, f: number) => {
  const name = `fresh-${f}.txt`;
  return { path: c.target.tool === "read_text_file" ? path.join(dir, name) : name };
};
for (let f = 0; f < WARMUP; f++) for (const c of fresh) await c.client.callTool({ name: c.target.tool, arguments: freshArgs(c, f) });
await roundRobin(
  fresh,
  FRESH_CALLS,
  (c, i) => freshArgs(c, WARMUP + i),
  (c, ms) => freshSamples.get(c)!.push(ms),
);
console.log(`\na different file (${lines.length} lines) at each call, ${FRESH_CALLS} calls per server after ${WARMUP} warm-up calls:`);
const freshP50 = new Map([...freshSamples].map(([c, samples]) => [c.target.label, p50Of(samples)]));
for (const [label, p50] of freshP50) console.log(`  ${label.padEnd(38)} p50 ${p50.toFixed(3)} ms`);
const freshReference = freshP50.get("reference server-filesystem")!;
const freshTackle = freshP50.get("tackle mcp (CLI, all tools)");
if (freshTackle !== undefined) {
  console.log(
    `tackle mcp (CLI, all tools), a different file each call: p50 ${(freshTackle / freshReference).toFixed(2)}x the reference server (goal <= 0.90)`,
  );
}

await Promise.allSettled(connected.map((c) => c.client.close()));
