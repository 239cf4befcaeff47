// run_code sandboxed against the same program spawned directly, in one run: the sandbox's cost.
// Goal (issue 4): the sandbox adds < 20 ms per call.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createRunCodeTool } from "../src/tools/code/index.js";
import { resolveInterpreter } from "../src/tools/code/interpreters.js";
import { runSandboxed, sandboxAvailable } from "../src/sandbox/sandbox.js";
import { Workspace } from "../src/workspace/workspace.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);

const status = await sandboxAvailable();
if (!status.available) {
  console.log(`sandbox unavailable, nothing to measure: ${status.reason}`);
  process.exit(0);
}

const ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-bench-ws-")));
const scratch = mkdtempSync(path.join(os.tmpdir(), "tackle-bench-code-"));
const workspace = Workspace.open(ws);
const tool = createRunCodeTool();

function direct(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: ws, stdio: ["ignore", "pipe", "pipe"], detached: true });
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", () => resolve());
  });
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) * q)]!;
};

/** CPU time (user + system, ms) of reaped child processes so far: unlike wall time, load on the machine barely moves it. */
function childrenCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}

async function compare(label: string, sandboxed: () => Promise<unknown>, reference: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await sandboxed();
    await reference();
  }
  const a: number[] = [];
  const b: number[] = [];
  let cpuA = 0;
  let cpuB = 0;
  // Interleaved, so drift in machine load hits both sides alike.
  for (let i = 0; i < ROUNDS; i++) {
    let c = childrenCpuMs();
    a.push(await time(sandboxed));
    cpuA += childrenCpuMs() - c;
    c = childrenCpuMs();
    b.push(await time(reference));
    cpuB += childrenCpuMs() - c;
  }
  const [ms, ref] = [quantile(a, 0.5), quantile(b, 0.5)];
  const [fast, fastRef] = [quantile(a, 0.1), quantile(b, 0.1)];
  const added = ms - ref;
  console.log(
    `${label.padEnd(44)} median: sandboxed ${ms.toFixed(1).padStart(6)} ms, direct ${ref.toFixed(1).padStart(6)} ms, ` +
      `added ${added.toFixed(1).padStart(5)} ms, ratio ${(ms / ref).toFixed(2)}x ${added < 20 ? "(ok, < 20 ms)" : "(OVER the 20 ms goal)"}`,
  );
  console.log(
    `${"".padEnd(44)} p10:    sandboxed ${fast.toFixed(1).padStart(6)} ms, direct ${fastRef.toFixed(1).padStart(6)} ms, ` +
      `added ${(fast - fastRef).toFixed(1).padStart(5)} ms;  child CPU per call ${(cpuA / ROUNDS).toFixed(1)} ms vs ${(cpuB / ROUNDS).toFixed(1)} ms`,
  );
}

try {
  const bash = (await resolveInterpreter("bash"))!;
  const python = await resolveInterpreter("python");
  const bashFile = path.join(scratch, "main.sh");
  writeFileSync(bashFile, "true");
  const pyFile = path.join(scratch, "main.py");
  writeFileSync(pyFile, "pass");

  console.log(
    `bubblewrap: ${status.version}; ${ROUNDS} rounds each; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs`,
  );
  await compare(
    "run_code bash `true` vs spawn bash file",
    () => tool.execute({ language: "bash", code: "true", args: [], env: {}, timeout: 60 }, { workspace }),
    () => direct(bash.path, [bashFile]),
  );
  if (python) {
    await compare(
      "run_code python `pass` vs spawn python3 file",
      () => tool.execute({ language: "python", code: "pass", args: [], env: {}, timeout: 60 }, { workspace }),
      () => direct(python.path, [pyFile]),
    );
  }
  await compare(
    "runSandboxed /bin/true vs spawn /bin/true",
    () => runSandboxed(["/bin/true"], { workspace: ws }),
    () => direct("/bin/true", []),
  );
} finally {
  rmSync(ws, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
}
