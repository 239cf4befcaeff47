// shell: a `shell` call of `true` (direct, and through ToolRunner) against a bare spawn of `true`.
// Goal: the tool within 1.3x of the bare spawn; a confined command within 1.2x of a bare spawn of
// bubblewrap with the very argv tackle builds for it (its mounts, limits and seccomp filter). Commands judged read-only run confined in
// bubblewrap (read-only, no network), and the rest in the workspace sandbox (the host read-only,
// the workspace writable); the added time of each is measured against the same call on the host.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { ToolRegistry } from "../src/registry/registry.js";
import { ToolRunner } from "../src/runtime/runner.js";
import { completeContext } from "../src/core/context.js";
import { createShellTools } from "../src/tools/shell/index.js";
import { launchFor, launchSettings } from "../src/tools/shell/sandbox-launcher.js";
import { shellSettingsFrom } from "../src/tools/shell/settings.js";
import { Workspace } from "../src/workspace/workspace.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const root = mkdtempSync(path.join(os.tmpdir(), "tackle-shell-bench-"));
// Removed however the run ends, a failed measurement included.
process.once("exit", () => rmSync(root, { recursive: true, force: true }));
const workspace = Workspace.open(root);
const { tools } = createShellTools(shellSettingsFrom({}));
const shell = tools.find((t) => t.name === "shell")!;
const unconfined = createShellTools(shellSettingsFrom({ shell: { confineReadOnly: false, sandbox: "off" } })).tools.find(
  (t) => t.name === "shell",
)!;
const registry = new ToolRegistry();
for (const t of tools) registry.register(t);
const runner = new ToolRunner({ registry, workspace: root, approval: "all", cache: false });

function bareSpawn(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.once("error", reject);
    // An anchor that failed early (bubblewrap refusing an argument) would be a flattering one.
    child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`))));
  });
}

/** The argv tackle runs `command` with (bwrap and its arguments), as the shell tool builds it. */
async function confinedArgv(command: string): Promise<{ file: string; args: string[] }> {
  const ctx = completeContext({ workspace });
  const launch = await launchFor(command, undefined, root, ctx, launchSettings(shellSettingsFrom({}), {}), {});
  if (!launch.argv) throw new Error(`"${command}" would not run confined here (${launch.unconfinedBecause ?? launch.confinement}).`);
  return launch.argv;
}
const lsArgv = await confinedArgv("ls");
const writeArgv = await confinedArgv("echo x > f");

const series: Array<[string, () => Promise<unknown>]> = [
  ["spawn('true') (bare)", () => bareSpawn("true", [])],
  ["spawn('/bin/bash', ['-c', 'true'])", () => bareSpawn("/bin/bash", ["-c", "true"])],
  ["shell tool: execute({command:'true'}), unconfined", () => unconfined.execute({ command: "true" }, { workspace })],
  ["shell tool: execute({command:'true'}), confined", () => shell.execute({ command: "true" }, { workspace })],
  ["shell tool: execute({command:'ls'}), unconfined", () => unconfined.execute({ command: "ls" }, { workspace })],
  ["shell tool: execute({command:'ls'}), confined", () => shell.execute({ command: "ls" }, { workspace })],
  ["shell tool: execute({command:'echo x > f'}), host", () => unconfined.execute({ command: "echo x > f" }, { workspace })],
  ["shell tool: execute({command:'echo x > f'}), sandbox", () => shell.execute({ command: "echo x > f" }, { workspace })],
  ["bwrap with tackle's argv for 'ls' (bare spawn)", () => bareSpawn(lsArgv.file, lsArgv.args)],
  ["bwrap with tackle's argv for 'echo x > f' (bare spawn)", () => bareSpawn(writeArgv.file, writeArgv.args)],
  [
    "ToolRunner.run(shell, 'true')",
    async () => {
      const out = await runner.run({ name: "shell", args: { command: "true" } });
      if (out.status !== "success") throw new Error(out.content);
    },
  ],
];

// Warm up (parser, JIT), then run the series round-robin so a busy moment on a shared machine
// hits all of them alike.
for (let i = 0; i < 20; i++) for (const [, fn] of series) await fn();
const samples = series.map(() => [] as number[]);
for (let i = 0; i < ROUNDS; i++) {
  for (const [k, [, fn]] of series.entries()) {
    const t0 = performance.now();
    await fn();
    samples[k]!.push(performance.now() - t0);
  }
}
const q = (list: number[], f: number) => list[Math.floor(list.length * f)]!;
const medians = samples.map((list, k) => {
  list.sort((a, b) => a - b);
  console.log(
    `${series[k]![0].padEnd(40)} p10 ${q(list, 0.1).toFixed(2)} ms  median ${q(list, 0.5).toFixed(2)} ms  p90 ${q(list, 0.9).toFixed(2)} ms`,
  );
  return q(list, 0.5);
});
const [bare, bareBash, direct, confinedTrue, lsPlain, lsConfined, writeHost, writeSandboxed, lsAnchor, writeAnchor, viaRunner] =
  medians as [number, number, number, number, number, number, number, number, number, number, number];
// On a shared machine the median moves with other people's load; the 10th percentile is the
// cost with the least interference, so it shows the tool's own overhead best.
const p10 = samples.map((list) => q(list, 0.1));
console.log(
  `\nratio at p10 (least interference): shell tool ${(p10[2]! / p10[0]!).toFixed(2)}x, ToolRunner ${(p10[10]! / p10[0]!).toFixed(2)}x`,
);

console.log(`\nratio shell tool / bare spawn(true):        ${(direct / bare).toFixed(2)}x (goal <= 1.3x)`);
console.log(`ratio ToolRunner / bare spawn(true):        ${(viaRunner / bare).toFixed(2)}x (confined)`);
console.log(`ratio shell tool / bare spawn(bash -c true): ${(direct / bareBash).toFixed(2)}x`);
console.log(
  `read-only confinement adds: true +${(confinedTrue - direct).toFixed(1)} ms (${(confinedTrue / direct).toFixed(2)}x), ` +
    `ls +${(lsConfined - lsPlain).toFixed(1)} ms (${(lsConfined / lsPlain).toFixed(2)}x)`,
);
console.log(
  `workspace sandbox adds: echo x > f +${(writeSandboxed - writeHost).toFixed(1)} ms (${(writeSandboxed / writeHost).toFixed(2)}x); ` +
    `sandboxed write / bare spawn(bash -c true): ${(writeSandboxed / bareBash).toFixed(2)}x`,
);
console.log(
  `confined command / bare bwrap with the same argv: ls ${(lsConfined / lsAnchor).toFixed(2)}x, ` +
    `echo x > f ${(writeSandboxed / writeAnchor).toFixed(2)}x (goal <= 1.2x)`,
);
await runner.close();
