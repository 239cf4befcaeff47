import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forgetProbes, probeKey, recalledProbe, REMEMBERED_MS, rememberProbe } from "../../src/sandbox/probe-memo.js";
import { sandboxAvailable } from "../../src/sandbox/sandbox.js";
import { runCli } from "../cli/run-cli.js";
import { tempDir } from "../support/tools.js";

// A bubblewrap probe that worked is remembered for later processes (src/sandbox/probe-memo.ts).
let home: ReturnType<typeof tempDir>;
let saved: string | undefined;
beforeEach(() => {
  home = tempDir();
  saved = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = home.dir;
});
afterEach(() => {
  if (saved === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = saved;
  home.cleanup();
});

const folder = () => path.join(home.dir, "tackle", "sandbox");
const entries = () => (existsSync(folder()) ? readdirSync(folder()).filter((n) => n.startsWith("probe-")) : []);
const real = (await sandboxAvailable()).available;

/** A bwrap that writes each run's first argument to `log`, then runs `then` (the real one, or a failure). */
function countingBwrap(dir: string, then: string): { file: string; runs: () => string[] } {
  const file = path.join(dir, "bwrap");
  const log = path.join(dir, "runs.log");
  writeFileSync(file, `#!/bin/sh\necho "$1" >> '${log}'\n${then}\n`);
  chmodSync(file, 0o755);
  return { file, runs: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []) };
}

describe("a remembered bubblewrap probe", () => {
  it("is recalled under the same key, within its time, from a private file only", () => {
    const bwrap = countingBwrap(home.dir, "exit 0").file;
    const key = probeKey(bwrap, ["--unshare-all", "true"], Buffer.from("prog"))!;
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(recalledProbe(key)).toBeUndefined();
    rememberProbe(key, { version: "bubblewrap 0.8.0", userns: true });
    expect(recalledProbe(key)).toEqual({ version: "bubblewrap 0.8.0", userns: true });
    const file = path.join(folder(), `probe-${key}.json`);
    expect(readFileSync(file, "utf8")).not.toContain(bwrap);

    // Too old, or from the future.
    writeFileSync(file, JSON.stringify({ version: "v", userns: true, at: Date.now() - REMEMBERED_MS - 1 }));
    expect(recalledProbe(key)).toBeUndefined();
    writeFileSync(file, JSON.stringify({ version: "v", userns: true, at: Date.now() + 60_000 }));
    expect(recalledProbe(key)).toBeUndefined();
    // Others may write it, it is a link, or it is not what tackle writes.
    writeFileSync(file, JSON.stringify({ version: "v", userns: true, at: Date.now() }));
    chmodSync(file, 0o666);
    expect(recalledProbe(key)).toBeUndefined();
    chmodSync(file, 0o600);
    expect(recalledProbe(key)).toEqual({ version: "v", userns: true });
    writeFileSync(file, JSON.stringify({ version: 1, userns: "yes", at: Date.now() }));
    expect(recalledProbe(key)).toBeUndefined();
    const elsewhere = path.join(home.dir, "planted.json");
    writeFileSync(elsewhere, JSON.stringify({ version: "v", userns: false, at: Date.now() }), { mode: 0o600 });
    const other = probeKey(bwrap, ["--other"], undefined)!;
    symlinkSync(elsewhere, path.join(folder(), `probe-${other}.json`));
    expect(recalledProbe(other)).toBeUndefined();
    // A folder others may write is not used at all.
    chmodSync(folder(), 0o777);
    expect(recalledProbe(key)).toBeUndefined();
    chmodSync(folder(), 0o700);
    forgetProbes();
    expect(recalledProbe(key)).toBeUndefined();
  });

  it("is keyed on the bwrap file, the command line and the seccomp program", () => {
    const { file } = countingBwrap(home.dir, "exit 0");
    const key = probeKey(file, ["a"], Buffer.from("p"));
    expect(probeKey(file, ["a"], Buffer.from("p"))).toBe(key);
    expect(probeKey(file, ["b"], Buffer.from("p"))).not.toBe(key);
    expect(probeKey(file, ["a"], Buffer.from("q"))).not.toBe(key);
    expect(probeKey(file, ["a"], undefined)).not.toBe(key);
    // An upgraded (rewritten) bwrap is another file.
    writeFileSync(file, "#!/bin/sh\nexit 0\n");
    expect(probeKey(file, ["a"], Buffer.from("p"))).not.toBe(key);
    expect(probeKey(path.join(home.dir, "missing"), ["a"], undefined)).toBeUndefined();
  });

  it.skipIf(!real)(
    "spares the next tackle process the probe: one bwrap run for its command instead of three",
    { timeout: 120_000 },
    async () => {
      const ws = tempDir();
      try {
        const bwrap = countingBwrap(ws.dir, 'exec /usr/bin/bwrap "$@"');
        mkdirSync(path.join(ws.dir, "w"));
        writeFileSync(path.join(ws.dir, "w", "tackle.config.json"), JSON.stringify({ sandbox: { bwrap: bwrap.file } }));
        const args = ["call", "shell", "command=echo hi | tr h H", "--approval", "all", "--workspace", path.join(ws.dir, "w")];
        const env = { XDG_CACHE_HOME: home.dir };
        const first = await runCli(args, { env });
        expect(first).toMatchObject({ code: 0, stdout: expect.stringContaining("Hi") });
        expect(bwrap.runs()).toHaveLength(3); // --version, the probe, the command
        expect(bwrap.runs()[0]).toBe("--version");
        expect(entries()).toHaveLength(1);
        const second = await runCli(args, { env });
        expect(second).toMatchObject({ code: 0, stdout: expect.stringContaining("Hi") });
        expect(bwrap.runs()).toHaveLength(4);
      } finally {
        ws.cleanup();
      }
    },
  );

  it("is never a failure: a bwrap that cannot make a sandbox is probed by every process", { timeout: 120_000 }, async () => {
    const ws = tempDir();
    try {
      const bwrap = countingBwrap(
        ws.dir,
        'if [ "$1" = --version ]; then echo "bubblewrap 9.9"; exit 0; fi\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1',
      );
      mkdirSync(path.join(ws.dir, "w"));
      writeFileSync(path.join(ws.dir, "w", "tackle.config.json"), JSON.stringify({ sandbox: { bwrap: bwrap.file } }));
      const args = ["call", "run_code", "language=python", "code=print(1)", "--approval", "all", "--workspace", path.join(ws.dir, "w")];
      const env = { XDG_CACHE_HOME: home.dir };
      const first = await runCli(args, { env });
      expect(first.stdout + first.stderr).toMatch(/sandbox is not available/);
      const runs = bwrap.runs().length;
      expect(runs).toBeGreaterThanOrEqual(3); // --version and both probes
      await runCli(args, { env });
      expect(bwrap.runs().length).toBe(2 * runs);
      expect(entries()).toEqual([]);
    } finally {
      ws.cleanup();
    }
  });
});
