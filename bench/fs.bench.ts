// read_file on a 1 GB file: a 100-line window at the end, against `tail -n 100` measured in the same run.
// Each read runs in a fresh child process so its peak RSS is its own. Goal: peak RSS < 100 MB.
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { copyFileSync, writeFileSync } from "node:fs";
import { once } from "node:events";

const GOAL_MB = 100;
const TARGET_BYTES = 1024 ** 3;
const here = fileURLToPath(import.meta.url);
const mb = (kb: number) => kb / 1024;

interface ChildReport {
  ms: number;
  maxRssKb: number;
  baselineRssKb: number;
  lines: number;
  first?: string;
  last?: string;
}

/** The child: one read through the bundled read_file, in plain Node (no TypeScript loader). */
const CHILD = `
import path from "node:path";
const [bundle, file, offset, limit] = process.argv.slice(2);
const { readFileTool, Workspace } = await import(new URL("file://" + bundle).href);
const workspace = Workspace.open(path.dirname(file));
const baselineRssKb = process.resourceUsage().maxRSS;
const started = performance.now();
const result = await readFileTool.execute({ path: path.basename(file), offset: Number(offset), limit: Number(limit) }, { workspace });
const ms = performance.now() - started;
const lines = result.structured.content.split("\\n");
process.stdout.write(JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS, baselineRssKb, lines: lines.length, first: lines[0], last: lines.at(-1) }));
`;

async function generate(file: string): Promise<number> {
  // 100-byte lines in 4 MiB blocks; the last block's lines are numbered so the window can be checked.
  const line = (n: number) => `${String(n).padStart(12, "0")} ${"lorem ipsum dolor sit amet ".repeat(4).slice(0, 86)}\n`;
  const perBlock = 40_960;
  const blocks = Math.round(TARGET_BYTES / (perBlock * 100));
  const out = createWriteStream(file, { highWaterMark: 8 * 1024 * 1024 });
  let n = 0;
  const body = Buffer.from(Array.from({ length: perBlock }, () => line(0)).join(""));
  for (let b = 0; b < blocks - 1; b++) {
    n += perBlock;
    if (!out.write(body)) await once(out, "drain");
  }
  const last = Array.from({ length: perBlock }, () => line(++n)).join("");
  out.end(last);
  await once(out, "finish");
  return n;
}

/**
 * Bundles read_file as plain JavaScript (what a user of the built package runs), so the child's
 * memory is the tool's and not the TypeScript loader's.
 */
async function bundleReadFile(dir: string): Promise<string> {
  const esbuild = await import("esbuild");
  const repo = path.resolve(path.dirname(here), "..");
  const outfile = path.join(dir, "read-file.bundle.mjs");
  await esbuild.build({
    stdin: {
      contents: 'export { readFileTool } from "./src/tools/fs/read-file.ts"; export { Workspace } from "./src/workspace/workspace.ts";',
      resolveDir: repo,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "error",
    // CommonJS dependencies (mammoth) call require(); give the ES module one.
    banner: { js: 'import { createRequire as __cr } from "node:module"; const require = __cr(import.meta.url);' },
  });
  copyFileSync(path.join(repo, "src", "tools", "fs", "read-file.txt"), path.join(dir, "read-file.txt"));
  writeFileSync(path.join(dir, "child.mjs"), CHILD);
  return outfile;
}

let bundlePath = "";

function runChild(file: string, offset: number, limit: number): ChildReport {
  const script = path.join(path.dirname(bundlePath), "child.mjs");
  const r = spawnSync(process.execPath, [script, bundlePath, file, String(offset), String(limit)], {
    encoding: "utf8",
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as ChildReport;
}

function tailReference(file: string): { ms: number; maxRssKb?: number; out: string } {
  const timeBin = "/usr/bin/time";
  const withTime = spawnSync(timeBin, ["-f", "%M", "tail", "-n", "100", file], { encoding: "utf8", maxBuffer: 1 << 24 });
  // Best of three: the machine is shared, and the reference should not look slower than it is.
  let ms = Infinity;
  let r = spawnSync("true", { encoding: "utf8" });
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    r = spawnSync("tail", ["-n", "100", file], { encoding: "utf8", maxBuffer: 1 << 24 });
    ms = Math.min(ms, performance.now() - started);
  }
  const rss = withTime.status === 0 ? Number(withTime.stderr.trim().split("\n").at(-1)) : undefined;
  return { ms, ...(rss ? { maxRssKb: rss } : {}), out: String(r.stdout) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tackle-fs-bench-"));
  const file = path.join(dir, "huge.log");
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  process.on("SIGINT", () => {
    cleanup();
    process.exit(130);
  });
  try {
    bundlePath = await bundleReadFile(dir);
    const t0 = performance.now();
    const total = await generate(file);
    const size = statSync(file).size;
    console.log(
      `generated ${(size / 1024 ** 3).toFixed(2)} GB, ${total.toLocaleString("en-US")} lines in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    const tail = tailReference(file);
    const tailLines = tail.out.trimEnd().split("\n");
    console.log(
      `tail -n 100 (reference):          ${tail.ms.toFixed(1)} ms${tail.maxRssKb ? `, peak RSS ${mb(tail.maxRssKb).toFixed(1)} MB` : ""}`,
    );

    const idle = runChild(file, 1, 1);
    console.log(
      `read_file offset 1, limit 1:       ${idle.ms.toFixed(1)} ms, peak RSS ` +
        `${mb(idle.maxRssKb).toFixed(1)} MB (process baseline ${mb(idle.baselineRssKb).toFixed(1)} MB)`,
    );

    const fromEnd = [runChild(file, -100, 100), runChild(file, -100, 100), runChild(file, -100, 100)].sort((a, b) => a.ms - b.ms)[0]!;
    if (fromEnd.first !== tailLines[0] || fromEnd.last !== tailLines.at(-1))
      console.log({ fromEnd, tailFirst: tailLines[0], tailLast: tailLines.at(-1) });
    const okEnd = fromEnd.lines === 100 && fromEnd.last === tailLines.at(-1) && fromEnd.first === tailLines[0];
    console.log(
      `read_file offset -100 (tail):      ${fromEnd.ms.toFixed(1)} ms, peak RSS ${mb(fromEnd.maxRssKb).toFixed(1)} MB ` +
        `— ${(fromEnd.ms / tail.ms).toFixed(2)}x tail's time; window ${okEnd ? "matches tail" : "DIFFERS from tail"}`,
    );

    const streamed = runChild(file, total - 99, 100);
    const okStream = streamed.lines === 100 && streamed.last === tailLines.at(-1) && streamed.first === tailLines[0];
    console.log(
      `read_file offset ${total - 99} (streamed): ${streamed.ms.toFixed(1)} ms, peak RSS ${mb(streamed.maxRssKb).toFixed(1)} MB — ` +
        `${(streamed.ms / tail.ms).toFixed(1)}x tail's time, ${(size / 1024 ** 2 / (streamed.ms / 1000)).toFixed(0)} ` +
        `MB/s; window ${okStream ? "matches tail" : "DIFFERS from tail"}`,
    );

    const peak = Math.max(fromEnd.maxRssKb, streamed.maxRssKb);
    const pass = mb(peak) < GOAL_MB && okEnd && okStream;
    console.log(`peak RSS ${mb(peak).toFixed(1)} MB vs goal < ${GOAL_MB} MB: ${pass ? "PASS" : "FAIL"}`);
    if (!pass) process.exitCode = 1;
  } finally {
    cleanup();
  }
}

await main();
