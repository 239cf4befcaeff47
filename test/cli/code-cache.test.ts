import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/tools.js";
import { runCli } from "./run-cli.js";

// The bundled command runs with V8's code cache (src/cli/code-cache.ts), kept in a private folder.
let home: ReturnType<typeof tempDir>;
let cacheDir: string;
const env = () => ({ XDG_CACHE_HOME: home.dir, TACKLE_CODE_CACHE: "" });
const cacheFiles = () => readdirSync(cacheDir).filter((name) => name.endsWith(".bin"));

beforeEach(() => {
  home = tempDir();
  cacheDir = path.join(home.dir, "tackle");
});
afterEach(() => home.cleanup());

describe("the code cache", { timeout: 180_000 }, () => {
  it("is written by a command's first run, privately, and used by the next", async () => {
    const first = await runCli(["tools", "--json"], { env: env() });
    expect(first.code).toBe(0);
    expect(cacheFiles()).toEqual([expect.stringMatching(/^cli-.*-tools\.bin$/)]);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    const file = path.join(cacheDir, cacheFiles()[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = statSync(file).mtimeMs;
    const second = await runCli(["tools", "--json"], { env: env() });
    expect(second.stdout).toBe(first.stdout);
    // An accepted cache is not written again.
    expect(statSync(file).mtimeMs).toBe(written);
  });

  it("keeps one cache per command, and per tool for tackle call", async () => {
    await runCli(["--version"], { env: env() });
    await runCli(["call", "read_file", "path=package.json", "limit=1"], { env: env() });
    expect(cacheFiles().map((n) => n.replace(/^cli-.*-/, ""))).toEqual(["call.read_file.bin", "other.bin"]);
  });

  it("survives a damaged cache: the command runs and the cache is written afresh", async () => {
    const first = await runCli(["--version"], { env: env() });
    const file = path.join(cacheDir, cacheFiles()[0]!);
    writeFileSync(file, Buffer.from("not a code cache at all"));
    const second = await runCli(["--version"], { env: env() });
    expect(second).toMatchObject({ code: 0, stdout: first.stdout, stderr: "" });
    expect(readFileSync(file).length).toBeGreaterThan(1000);
  });

  it("replaces the caches of earlier builds for the same command", async () => {
    mkdirSync(cacheDir, { mode: 0o700 });
    const stale = path.join(cacheDir, `cli-oldbuild-${process.version}-${process.arch}-other.bin`);
    writeFileSync(stale, "old");
    await runCli(["--version"], { env: env() });
    expect(cacheFiles()).toEqual([expect.not.stringContaining("oldbuild")]);
  });

  it("is not used from a folder others can write, nor when TACKLE_CODE_CACHE=0", async () => {
    mkdirSync(cacheDir);
    chmodSync(cacheDir, 0o777);
    expect((await runCli(["--version"], { env: env() })).code).toBe(0);
    expect(cacheFiles()).toEqual([]);
    chmodSync(cacheDir, 0o700);
    expect((await runCli(["--version"], { env: { ...env(), TACKLE_CODE_CACHE: "0" } })).code).toBe(0);
    expect(cacheFiles()).toEqual([]);
  });
});
