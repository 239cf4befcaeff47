// apply_patch against `git apply` on the same 100-file patch, in the same run: each round applies
// the patch and then its reverse, so every round changes the same 300 hunks. git apply is timed
// as an agent would run it (a process per patch); apply_patch directly and through the runner.
// apply_patch stages and flushes every file before renaming any (all or none, durable); git apply
// writes in place without flushing. Medians of interleaved rounds.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Workspace } from "../src/index.js";
import { ToolRegistry } from "../src/registry/registry.js";
import { ToolRunner } from "../src/runtime/runner.js";
import { applyPatchTool } from "../src/tools/fs/apply-patch.js";

const FILES = 100;
const ROUNDS = Number(process.env.BENCH_RUNS ?? 15);
const dir = mkdtempSync(path.join(os.tmpdir(), "tackle-patch-bench-"));
const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], { cwd: dir, encoding: "utf8", maxBuffer: 1 << 28 });
try {
  const body = (f: number, changed: boolean) =>
    Array.from({ length: 200 }, (_, i) =>
      changed && i % 70 === 10 ? `changed line ${i} of file ${f}` : `line ${i} of file ${f}: lorem ipsum dolor`,
    ).join("\n") + "\n";
  for (let f = 0; f < FILES; f++) {
    mkdirSync(path.join(dir, `pkg${f % 10}`), { recursive: true });
    writeFileSync(path.join(dir, `pkg${f % 10}`, `file${f}.ts`), body(f, false));
  }
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "base");
  for (let f = 0; f < FILES; f++) writeFileSync(path.join(dir, `pkg${f % 10}`, `file${f}.ts`), body(f, true));
  const forward = git("diff");
  const reverse = git("diff", "-R");
  git("checkout", "-q", "--", ".");
  const patches = [forward, reverse];
  const files = [path.join(dir, "forward.patch"), path.join(dir, "reverse.patch")];
  patches.forEach((p, i) => writeFileSync(files[i]!, p));

  const workspace = Workspace.open(dir);
  const registry = new ToolRegistry();
  registry.register(applyPatchTool);
  const runner = new ToolRunner({ registry, workspace: dir, approval: "all", cache: false });
  let step = 0;
  const contenders: Array<[string, () => Promise<void>]> = [
    [
      "git apply (reference)",
      async () => {
        const r = spawnSync("git", ["apply", files[step++ % 2]!], { cwd: dir });
        if (r.status !== 0) throw new Error(r.stderr.toString());
      },
    ],
    [
      "apply_patch, direct",
      async () => {
        const r = await applyPatchTool.execute({ patch: patches[step++ % 2]! }, { workspace });
        if (r.isError) throw new Error(r.content);
      },
    ],
    [
      "apply_patch, runner",
      async () => {
        const r = await runner.run({ name: "apply_patch", args: { patch: patches[step++ % 2]! } });
        if (r.status !== "success") throw new Error(r.content);
      },
    ],
  ];
  // Each contender runs a forward and a reverse patch per round, so the tree is the same for the next.
  const times = contenders.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS + 2; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const j = (k + round) % contenders.length;
      const start = performance.now();
      await contenders[j]![1]();
      await contenders[j]![1]();
      if (round >= 2) times[j]!.push((performance.now() - start) / 2);
    }
  }
  await runner.close();
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ref = median(times[0]!);
  console.log(`patch: ${FILES} files, ${(forward.match(/^@@/gm) ?? []).length} hunks, ${(forward.length / 1024).toFixed(0)} KB`);
  contenders.forEach(([name], i) => {
    const t = median(times[i]!);
    console.log(`${name.padEnd(24)} ${t.toFixed(1).padStart(7)} ms${i ? ` — ${(t / ref).toFixed(2)}x` : ""}`);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
