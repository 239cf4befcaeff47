// Start-up, measured from outside as clients and scripts see it, against anchors in the same run
// (interleaved rounds, medians):
//   - `tackle mcp` spawn → initialize → first tools/list, against @modelcontextprotocol/server-filesystem
//     with the same client; and the gap between initialize and tools/list;
//   - idle RSS of both servers after that;
//   - `tackle mcp` with one configured MCP server that never answers, against none;
//   - `tackle call read_file` and `tackle call shell command='echo hi'` (a first shell call: plain words,
//     judged without the bash grammar; the sandbox probe; a confined run) against `node -e ''`;
//     `echo 'hi' | cat` (a plain list, judged without the grammar too) and `echo "$(pwd)" | cat`, which
//     only the grammar judges.
// tackle runs with its own code cache (written by the first, warming run into a private folder here),
// as every run after a command's first does; the rows "first run" start with an empty cache folder
// each time, so only the cache the build left beside the command (dist/cli/code-cache) is there, and
// the rows "no code cache" (TACKLE_CODE_CACHE=0) compile everything.
// Goals (issue 10): spawn → tools/list <= 1.0x, gap <= 50 ms, RSS <= 1.5x, silent server <= 1.2x,
// tackle call read_file <= 3x node -e ''; (issue 31) tackle call shell <= 3x node -e '',
// tackle mcp start <= 0.7x server-filesystem, with the code cache and without.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(root, "dist/cli/main.cjs");
if (!existsSync(cli)) throw new Error("Build first (npm run build): the benchmark runs tackle from dist.");
const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-startup-bench-")));
const plain = path.join(base, "plain");
const silent = path.join(base, "silent");
for (const d of [plain, silent]) {
  mkdirSync(d);
  writeFileSync(path.join(d, "a.txt"), "hello\n");
}
writeFileSync(
  path.join(silent, "tackle.config.json"),
  JSON.stringify({
    mcpServers: { quiet: { command: process.execPath, args: ["-e", "process.stdin.resume(); setInterval(() => {}, 1 << 30)"] } },
  }),
);

interface Server {
  label: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** A folder emptied before each start. */
  fresh?: string;
}
// The code cache goes to a folder of this run's own, so earlier runs' caches play no part.
const cached = { XDG_CACHE_HOME: path.join(base, "cache"), TACKLE_CODE_CACHE: "own" };
const firstRunCache = path.join(base, "first-run");
const firstRun = { XDG_CACHE_HOME: firstRunCache };
const uncached = { TACKLE_CODE_CACHE: "0" };
const reference: Server = {
  label: "server-filesystem (reference)",
  command: process.execPath,
  args: [path.join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), plain],
};
const tackle: Server = { label: "tackle mcp", command: process.execPath, args: [cli, "mcp", "--workspace", plain], env: cached };
const tackleFirst: Server = { ...tackle, label: "tackle mcp, first run", env: firstRun, fresh: firstRunCache };
const tackleUncached: Server = { ...tackle, label: "tackle mcp, no code cache", env: uncached };
const tackleSilent: Server = {
  label: "tackle mcp, one silent MCP server",
  command: process.execPath,
  args: [cli, "mcp", "--workspace", silent],
  env: cached,
};

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function startOnce(server: Server, measureRss: boolean): Promise<{ total: number; gap: number; rss: number }> {
  if (server.fresh) rmSync(server.fresh, { recursive: true, force: true });
  const client = new Client({ name: "startup-bench", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    cwd: base,
    stderr: "ignore",
    env: { ...(process.env as Record<string, string>), ...server.env },
  });
  const start = performance.now();
  await client.connect(transport);
  const initialized = performance.now();
  await client.listTools();
  const listed = performance.now();
  let rss = 0;
  if (measureRss && transport.pid) {
    await new Promise((r) => setTimeout(r, 1_000));
    rss = rssMiB(transport.pid);
  }
  await client.close();
  return { total: listed - start, gap: listed - initialized, rss };
}

function run(command: string, args: string[], env: Record<string, string> = cached): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, { cwd: plain, stdio: ["ignore", "ignore", "ignore"], env: { ...process.env, ...env } });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(performance.now() - start) : reject(new Error(`${args.join(" ")} exited ${code}`))));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ROUNDS = 9;
const servers = [reference, tackle, tackleFirst, tackleUncached, tackleSilent];
const samples = new Map(servers.map((s) => [s, { total: [] as number[], gap: [] as number[], rss: [] as number[] }]));
try {
  for (const s of servers) await startOnce(s, false); // warm the file cache
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...servers].reverse() : servers;
    for (const s of order) {
      const r = await startOnce(s, round < 3 && s !== tackleSilent);
      const m = samples.get(s)!;
      m.total.push(r.total);
      m.gap.push(r.gap);
      if (r.rss) m.rss.push(r.rss);
    }
  }
  console.log("server                                spawn → tools/list   initialize → tools/list   idle RSS");
  for (const s of servers) {
    const m = samples.get(s)!;
    const rss = m.rss.length ? `${median(m.rss).toFixed(0)} MiB` : "-";
    console.log(
      `${s.label.padEnd(38)} ${median(m.total).toFixed(0).padStart(8)} ms ${median(m.gap).toFixed(1).padStart(18)} ms ${rss.padStart(14)}`,
    );
  }
  const ref = samples.get(reference)!;
  const own = samples.get(tackle)!;
  const quiet = samples.get(tackleSilent)!;
  const first = samples.get(tackleFirst)!;
  const cold = samples.get(tackleUncached)!;
  console.log(`\ntackle mcp spawn → tools/list: ${(median(own.total) / median(ref.total)).toFixed(2)}x server-filesystem (goal <= 0.7x)`);
  console.log(`  a first run (the build's code cache alone): ${(median(first.total) / median(ref.total)).toFixed(2)}x (goal <= 0.7x)`);
  console.log(`  without any code cache: ${(median(cold.total) / median(ref.total)).toFixed(2)}x (goal <= 0.7x)`);
  console.log(
    `initialize → tools/list gap: ${median(own.gap).toFixed(1)} ms (server-filesystem ${median(ref.gap).toFixed(1)} ms; goal <= 50 ms)`,
  );
  console.log(`idle RSS: ${(median(own.rss) / median(ref.rss)).toFixed(2)}x server-filesystem (goal <= 1.5x)`);
  console.log(`with one silent MCP server: ${(median(quiet.total) / median(own.total)).toFixed(2)}x start-up with none (goal <= 1.2x)`);

  const node: number[] = [];
  const call: number[] = [];
  const firstCall: number[] = [];
  const coldCall: number[] = [];
  const version: number[] = [];
  const shell: number[] = [];
  const list: number[] = [];
  const parsed: number[] = [];
  const shellArgs = [cli, "call", "shell", "command=echo hi", "--approval", "all"];
  // Quotes and a pipe with nothing to expand: a plain list, split without the grammar.
  const listArgs = [cli, "call", "shell", "command=echo 'hi' | cat", "--approval", "all"];
  // A command substitution: only the bash grammar reads it, loaded and compiled on this first call.
  const parsedArgs = [cli, "call", "shell", 'command=echo "$(pwd)" | cat', "--approval", "all"];
  await run(process.execPath, [cli, "call", "read_file", "path=a.txt"]);
  await run(process.execPath, shellArgs);
  await run(process.execPath, listArgs);
  await run(process.execPath, parsedArgs);
  await run(process.execPath, [cli, "--version"]);
  for (let round = 0; round < ROUNDS; round++) {
    node.push(await run(process.execPath, ["-e", ""]));
    call.push(await run(process.execPath, [cli, "call", "read_file", "path=a.txt"]));
    rmSync(firstRunCache, { recursive: true, force: true });
    firstCall.push(await run(process.execPath, [cli, "call", "read_file", "path=a.txt"], firstRun));
    coldCall.push(await run(process.execPath, [cli, "call", "read_file", "path=a.txt"], uncached));
    version.push(await run(process.execPath, [cli, "--version"]));
    shell.push(await run(process.execPath, shellArgs));
    list.push(await run(process.execPath, listArgs));
    parsed.push(await run(process.execPath, parsedArgs));
  }
  console.log(`\nnode -e '' (reference): ${median(node).toFixed(0)} ms`);
  console.log(`tackle --version:       ${median(version).toFixed(0)} ms (${(median(version) / median(node)).toFixed(2)}x)`);
  console.log(`tackle call read_file:  ${median(call).toFixed(0)} ms (${(median(call) / median(node)).toFixed(2)}x; goal <= 3x)`);
  console.log(`  a first run:          ${median(firstCall).toFixed(0)} ms (${(median(firstCall) / median(node)).toFixed(2)}x)`);
  console.log(`  without any code cache: ${median(coldCall).toFixed(0)} ms (${(median(coldCall) / median(node)).toFixed(2)}x)`);
  console.log(`tackle call shell:      ${median(shell).toFixed(0)} ms (${(median(shell) / median(node)).toFixed(2)}x; goal <= 3x)`);
  console.log(`  echo 'hi' | cat:       ${median(list).toFixed(0)} ms (${(median(list) / median(node)).toFixed(2)}x; goal <= 3x)`);
  console.log(
    `  echo "$(pwd)" | cat:    ${median(parsed).toFixed(0)} ms (${(median(parsed) / median(node)).toFixed(2)}x; the bash grammar loaded)`,
  );
} finally {
  rmSync(base, { recursive: true, force: true });
}
