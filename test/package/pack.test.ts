// The published package, as a user gets it: `npm pack`, installed with runtime dependencies only
// into a fresh folder, then the command and the README's library example run from there.
// Slow (an npm install); it talks only to the npm registry, through npm's cache when it can.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOrFail, runProcess } from "../support/run-process.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
let base: string;
let project: string;

beforeAll(async () => {
  base = mkdtempSync(path.join(os.tmpdir(), "tackle-pack-"));
  // The build is already there (npm test builds first); packing must not rebuild it.
  await runOrFail(npm, ["pack", "--ignore-scripts", "--pack-destination", base], { cwd: root, timeoutMs: 300_000 });
  const tarball = readdirSync(base).find((f) => f.endsWith(".tgz"))!;
  project = path.join(base, "project");
  mkdirSync(project);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "uses-tackle", version: "1.0.0", type: "module" }));
  await runOrFail(npm, ["install", "--omit=dev", "--no-audit", "--no-fund", "--prefer-offline", path.join(base, tarball)], {
    cwd: project,
    timeoutMs: 600_000,
  });
}, 660_000);
// A whole node_modules tree: removed without blocking the worker, with the time a loaded machine needs.
afterAll(() => rm(base, { recursive: true, force: true }), 300_000);

describe("the packed package in a fresh folder", () => {
  it("holds the build and no test or source files, and installs runtime dependencies only", () => {
    const installed = path.join(project, "node_modules", "tackle");
    expect(existsSync(path.join(installed, "dist", "cli", "main.js"))).toBe(true);
    expect(existsSync(path.join(installed, "test"))).toBe(false);
    expect(existsSync(path.join(installed, "src"))).toBe(false);
    // The clone's build left compiled code for first runs; it fits that build and this Node alone.
    expect(existsSync(path.join(root, "dist", "cli", "code-cache"))).toBe(true);
    expect(existsSync(path.join(installed, "dist", "cli", "code-cache"))).toBe(false);
    for (const devOnly of ["vitest", "@modelcontextprotocol/sdk", "ai", "playwright-core", "typescript"]) {
      expect(existsSync(path.join(project, "node_modules", devOnly)), devOnly).toBe(false);
    }
  });

  it("runs `tackle tools` and `tackle call`", async () => {
    const bin = path.join(project, "node_modules", ".bin", "tackle");
    const tools = await runProcess(bin, ["tools"], { cwd: project, timeoutMs: 120_000 });
    expect(tools.status, tools.stderr).toBe(0);
    expect(tools.stdout).toContain("read_file");
    const call = await runProcess(bin, ["call", "read_file", "path=package.json", "limit=2"], { cwd: project, timeoutMs: 120_000 });
    expect(call.stdout).toContain('"name":"uses-tackle"');
  });

  it("installs from the clone as a command on the PATH (the README's step) that runs from any folder", async () => {
    const prefix = path.join(base, "global");
    // What `npm install -g .` does, into a prefix of the test's own; the clone is already built.
    await runOrFail(npm, ["install", "-g", "--prefix", prefix, "--ignore-scripts", "--no-audit", "--no-fund", root], {
      cwd: base,
      timeoutMs: 300_000,
    });
    const elsewhere = path.join(base, "elsewhere");
    mkdirSync(elsewhere);
    writeFileSync(path.join(elsewhere, "notes.txt"), "from elsewhere\n");
    const r = await runProcess(path.join(prefix, "bin", "tackle"), ["call", "read_file", "path=notes.txt"], {
      cwd: elsewhere,
      timeoutMs: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("from elsewhere");
  });

  it("runs the README's library example as written", async () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    const example = /```ts\n([\s\S]*?)```/.exec(readme)![1]!;
    writeFileSync(path.join(project, "example.mjs"), example);
    const run = await runProcess(process.execPath, ["example.mjs"], { cwd: project, timeoutMs: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^5 /);
  });
});
