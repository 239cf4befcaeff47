// The published package, as a user gets it: `npm pack`, installed with runtime dependencies only
// into a fresh folder, then the command and the README's library example run from there.
// Slow (an npm install); it talks only to the npm registry, through npm's cache when it can.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
let base: string;
let project: string;

beforeAll(() => {
  base = mkdtempSync(path.join(os.tmpdir(), "tackle-pack-"));
  // The build is already there (npm test builds first); packing must not rebuild it.
  execFileSync(npm, ["pack", "--ignore-scripts", "--pack-destination", base], { cwd: root, stdio: "pipe" });
  const tarball = readdirSync(base).find((f) => f.endsWith(".tgz"))!;
  project = path.join(base, "project");
  mkdirSync(project);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "uses-tackle", version: "1.0.0", type: "module" }));
  execFileSync(npm, ["install", "--omit=dev", "--no-audit", "--no-fund", "--prefer-offline", path.join(base, tarball)], {
    cwd: project,
    stdio: "pipe",
    timeout: 600_000,
  });
}, 660_000);
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("the packed package in a fresh folder", () => {
  it("holds the build and no test or source files, and installs runtime dependencies only", () => {
    const installed = path.join(project, "node_modules", "tackle");
    expect(existsSync(path.join(installed, "dist", "cli", "main.js"))).toBe(true);
    expect(existsSync(path.join(installed, "test"))).toBe(false);
    expect(existsSync(path.join(installed, "src"))).toBe(false);
    for (const devOnly of ["vitest", "@modelcontextprotocol/sdk", "ai", "playwright-core", "typescript"]) {
      expect(existsSync(path.join(project, "node_modules", devOnly)), devOnly).toBe(false);
    }
  });

  it("runs `tackle tools` and `tackle call`", () => {
    const bin = path.join(project, "node_modules", ".bin", "tackle");
    const tools = spawnSync(bin, ["tools"], { cwd: project, encoding: "utf8", timeout: 120_000 });
    expect(tools.status, tools.stderr).toBe(0);
    expect(tools.stdout).toContain("read_file");
    const call = spawnSync(bin, ["call", "read_file", "path=package.json", "limit=2"], {
      cwd: project,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(call.stdout).toContain('"name":"uses-tackle"');
  });

  it("runs the README's library example as written", () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    const example = /```ts\n([\s\S]*?)```/.exec(readme)![1]!;
    writeFileSync(path.join(project, "example.mjs"), example);
    const run = spawnSync(process.execPath, ["example.mjs"], { cwd: project, encoding: "utf8", timeout: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^5 /);
  });
});
