import { spawn } from "node:child_process";
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ToolError } from "../../src/core/errors.js";
import { BoundedOutput } from "../../src/process/bounded-output.js";
import {
  buildSandboxArgs,
  resetSandboxDetection,
  runSandboxed,
  SANDBOX_INSTALL_HINT,
  sandboxAvailable,
  sandboxLimits,
  sandboxOptionsFrom,
  seccompProgram,
  BLOCKED_SYSCALLS,
  spawnSandboxed,
} from "../../src/sandbox/sandbox.js";
import { DEFAULT_SANDBOX_LIMITS, sandboxSettingsFrom } from "../../src/sandbox/config.js";
import { tempDir } from "../support/tools.js";
import { prepareSystem } from "../../src/sandbox/rootfs.js";
import { processesWith as hostProcessesWith } from "../support/processes.js";

const status = await sandboxAvailable();
if (!status.available) console.warn(`sandbox tests that need bubblewrap are skipped: ${status.reason}`);
const sandboxed = describe.skipIf(!status.available);

let ws: ReturnType<typeof tempDir>;
beforeEach(() => {
  ws = tempDir("tackle-sandbox-ws-");
});
afterEach(() => ws.cleanup());

describe("detection", () => {
  it("is done once per bwrap path and cached", () => {
    expect(sandboxAvailable()).toBe(sandboxAvailable());
    expect(sandboxAvailable({ bwrap: "/nonexistent/bwrap" })).toBe(sandboxAvailable({ bwrap: "/nonexistent/bwrap" }));
  });

  it("reports a missing bubblewrap with how to install it", async () => {
    const missing = await sandboxAvailable({ bwrap: "/nonexistent/bwrap" });
    expect(missing.available).toBe(false);
    expect(!missing.available && missing.reason).toContain("apt-get install bubblewrap");
    expect(SANDBOX_INSTALL_HINT).toContain("apt-get install bubblewrap");
  });

  it("reports a bubblewrap that cannot create namespaces, and never runs the command without it", async () => {
    const fake = path.join(ws.dir, "fake-bwrap");
    writeFileSync(
      fake,
      '#!/bin/sh\nif [ "$1" = --version ]; then echo "bubblewrap 9.9"; exit 0; fi\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n',
    );
    chmodSync(fake, 0o755);
    const result = await sandboxAvailable({ bwrap: fake });
    expect(result.available).toBe(false);
    expect(!result.available && result.reason).toMatch(/cannot create a sandbox here: bwrap: setting up uid map: Permission denied/);
    const marker = path.join(ws.dir, "ran");
    const err = await spawnSandboxed(["/usr/bin/touch", marker], { workspace: ws.dir, bwrap: fake }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).code).toBe("UNAVAILABLE");
    expect((err as ToolError).message).toContain("never runs it unsandboxed");
    expect(existsSync(marker)).toBe(false);
  });

  it("can be reset", async () => {
    const before = sandboxAvailable({ bwrap: "/nonexistent/bwrap" });
    resetSandboxDetection();
    expect(sandboxAvailable({ bwrap: "/nonexistent/bwrap" })).not.toBe(before);
  });
});

describe("buildSandboxArgs", () => {
  beforeAll(() => prepareSystem());

  it("isolates everything and binds only the workspace read-write", () => {
    const args = buildSandboxArgs(["/usr/bin/python3", "/run/x.py", "a b", "$(id)"], { workspace: ws.dir });
    for (const flag of [
      "--unshare-all",
      "--unshare-user",
      "--disable-userns",
      "--die-with-parent",
      "--new-session",
      "--clearenv",
      "--remount-ro",
    ]) {
      expect(args).toContain(flag);
    }
    expect(args.join(" ")).toContain("--cap-drop ALL");
    expect(args).not.toContain("--share-net");
    const writable = args.flatMap((a, i) => (a === "--bind" ? [args[i + 1]] : []));
    expect(writable).toEqual([ws.dir]);
    const home = os.homedir();
    const sources = args.flatMap((a, i) => (a === "--ro-bind" || a === "--bind" ? [args[i + 1]!] : []));
    // (With HOME=/tmp the temp folder is "home": the workspace and tackle's own /etc copy live there.)
    const fromHome = sources.filter(
      (s) => s === home || (s.startsWith(home + "/") && !s.startsWith(ws.dir) && !/\/tackle\/sandbox\/etc-[0-9a-f]+$/.test(s)),
    );
    expect(fromHome).toEqual([]);
    // The command comes last, each argument its own argv entry, after the limiter.
    expect(args.slice(-4)).toEqual(["/usr/bin/python3", "/run/x.py", "a b", "$(id)"]);
    expect(args.join(" ")).toMatch(/--chdir \S+ -- \S*(prlimit|bash)/);
  });

  it("shares the network only when asked", () => {
    expect(buildSandboxArgs(["true"], { workspace: ws.dir, network: true })).toContain("--share-net");
  });

  it("sets the minimal environment and the caller's variables", () => {
    const args = buildSandboxArgs(["true"], { workspace: ws.dir, env: { FOO: "bar baz" } });
    const env = Object.fromEntries(args.flatMap((a, i) => (a === "--setenv" ? [[args[i + 1], args[i + 2]]] : [])));
    expect(env).toMatchObject({ HOME: "/tmp", LANG: "C.UTF-8", FOO: "bar baz" });
    expect(env.PATH).toMatch(/\/usr\/bin/);
  });

  it("refuses bad input instead of building a weaker sandbox", () => {
    expect(() => buildSandboxArgs([], { workspace: ws.dir })).toThrow(/empty/);
    expect(() => buildSandboxArgs(["true"], { workspace: ws.dir, env: { "BAD-NAME": "x" } })).toThrow(/not a valid/);
    expect(() => buildSandboxArgs(["true"], { workspace: ws.dir, env: { A: "x\0y" } })).toThrow(/null byte/);
    expect(() => buildSandboxArgs(["true"], { workspace: ws.dir, cwd: "/etc" })).toThrow(/outside the workspace/);
    expect(() => buildSandboxArgs(["true"], { workspace: "relative/ws" })).toThrow(/absolute/);
    expect(() => buildSandboxArgs(["true"], { workspace: ws.dir, readOnly: ["relative"] })).toThrow(/absolute/);
    expect(() => sandboxLimits({ processes: 0 })).toThrow(/positive/);
    expect(() => sandboxLimits({ memoryBytes: Number.NaN })).toThrow(/positive/);
  });
});

describe("configuration", () => {
  it("defaults, megabytes to bytes, and loud errors", () => {
    expect(sandboxSettingsFrom({})).toEqual({ network: false, readOnlyPaths: [], limits: DEFAULT_SANDBOX_LIMITS });
    const s = sandboxSettingsFrom({ sandbox: { network: true, limits: { memoryMb: 256, fileSizeMb: 2, processes: 10 } } });
    expect(s.network).toBe(true);
    expect(s.limits).toMatchObject({ memoryBytes: 256 * 1024 * 1024, fileSizeBytes: 2 * 1024 * 1024, processes: 10 });
    expect(() => sandboxSettingsFrom({ sandbox: { netwrok: true } })).toThrow(/sandbox/);
    expect(() => sandboxSettingsFrom({ sandbox: { limits: { processes: -1 } } })).toThrow(/processes/);
  });
});

describe("sandboxOptionsFrom", () => {
  it("turns the configuration section into options another tool can spawn with", () => {
    const settings = sandboxSettingsFrom({
      sandbox: { network: true, bwrap: "/opt/bwrap", readOnlyPaths: ["/opt/tool"], limits: { processes: 9 } },
    });
    expect(sandboxOptionsFrom(settings, ws.dir)).toEqual({
      workspace: ws.dir,
      network: true,
      limits: { ...DEFAULT_SANDBOX_LIMITS, processes: 9 },
      readOnly: ["/opt/tool"],
      bwrap: "/opt/bwrap",
    });
  });
});

describe("seccompProgram", () => {
  it("is a whole number of BPF instructions ending in allow and deny, on the architectures it knows", () => {
    for (const arch of ["x64", "arm64"]) {
      const prog = seccompProgram(arch)!;
      expect(prog.length % 8).toBe(0);
      const n = prog.length / 8;
      expect(prog.readUInt16LE((n - 2) * 8)).toBe(0x06);
      expect(prog.readUInt32LE((n - 2) * 8 + 4)).toBe(0x7fff0000);
      expect(prog.readUInt32LE((n - 1) * 8 + 4)).toBe(0x00050001);
    }
    expect(seccompProgram("ia32")).toBeUndefined();
    expect(BLOCKED_SYSCALLS).toContain("io_uring_setup");
  });
});

describe("BoundedOutput", () => {
  it("keeps head and tail within its budget and counts what it dropped", () => {
    const out = new BoundedOutput(1000);
    const chunk = Buffer.alloc(10_000, "x");
    out.push(Buffer.from("HEAD"));
    for (let i = 0; i < 1000; i++) out.push(chunk);
    out.push(Buffer.from("TAIL"));
    expect(out.totalBytes).toBe(8 + 10_000_000);
    expect(out.droppedBytes).toBe(out.totalBytes - 1000);
    const text = out.text();
    expect(text.startsWith("HEAD")).toBe(true);
    expect(text.endsWith("TAIL")).toBe(true);
    expect(text).toContain("bytes of output cut");
    expect(text.length).toBeLessThan(1100);
  });

  it("is exact when nothing was cut", () => {
    const out = new BoundedOutput(100);
    out.push(Buffer.from("héllo "));
    out.push(Buffer.from("wörld"));
    expect(out.text()).toBe("héllo wörld");
    expect(out.droppedBytes).toBe(0);
  });
});

sandboxed("runSandboxed", () => {
  it("runs a command and streams its output", async () => {
    const chunks: Array<[string, string]> = [];
    const r = await runSandboxed(["/bin/sh", "-c", "echo out; echo err >&2; exit 4"], {
      workspace: ws.dir,
      onOutput: (c, stream) => chunks.push([stream, c]),
    });
    expect(r).toMatchObject({ stdout: "out\n", stderr: "err\n", exitCode: 4, timedOut: false, cancelled: false });
    expect(chunks).toEqual(
      expect.arrayContaining([
        ["stdout", "out\n"],
        ["stderr", "err\n"],
      ]),
    );
  });

  it("makes files from memory, read-only, with no copy on the host", async () => {
    const content = 'echo from-memory "$@"\n' + "#".repeat(300_000) + "\n";
    const r = await runSandboxed(["/bin/bash", "/run/tackle/prog.sh", "x"], {
      workspace: ws.dir,
      files: [
        { target: "/run/tackle/prog.sh", content },
        { target: "/run/tackle/data.txt", content: "second" },
      ],
    });
    expect(r.stdout).toBe("from-memory x\n");
    const check = await runSandboxed(["/bin/sh", "-c", "cat /run/tackle/data.txt; echo; echo x > /run/tackle/data.txt || echo READONLY"], {
      workspace: ws.dir,
      files: [{ target: "/run/tackle/data.txt", content: "second" }],
    });
    expect(check.stdout).toBe("second\nREADONLY\n");
  });

  it("passes stdin when given", async () => {
    const r = await runSandboxed(["/bin/cat"], { workspace: ws.dir, input: "from stdin" });
    expect(r.stdout).toBe("from stdin");
  });

  it("kills the whole sandbox at the timeout, keeping partial output; nothing outlives it", async () => {
    const marker = `654.${process.pid}${Date.now() % 1000}`;
    const r = await runSandboxed(["/bin/sh", "-c", `echo begin; (setsid sleep ${marker} &); sleep ${marker}`], {
      workspace: ws.dir,
      timeoutMs: 500,
    });
    expect(r).toMatchObject({ timedOut: true, exitCode: -1, stdout: "begin\n" });
    expect(hostProcessesWith(marker)).toEqual([]);
  });

  it("is cancelled by its signal", async () => {
    const controller = new AbortController();
    const r = await runSandboxed(["/bin/sh", "-c", "echo ready; sleep 60"], {
      workspace: ws.dir,
      signal: controller.signal,
      onOutput: (c) => c.includes("ready") && controller.abort(),
    });
    expect(r.cancelled).toBe(true);
    await expect(runSandboxed(["/bin/true"], { workspace: ws.dir, signal: controller.signal })).rejects.toThrow(/cancelled/);
  });

  it("bounds what it keeps of huge output", async () => {
    const r = await runSandboxed(["/bin/sh", "-c", "head -c 30000000 /dev/zero"], { workspace: ws.dir, maxOutputBytes: 100_000 });
    expect(r.droppedBytes.stdout).toBe(30_000_000 - 100_000);
    expect(r.stdout.length).toBeLessThan(110_000);
  });

  /** Runs bwrap directly with built arguments; `prefix` is a shell snippet run first (to leak a descriptor). */
  function rawBwrap(args: string[], prefix = ""): Promise<string> {
    return new Promise<string>((resolve) => {
      let out = "";
      const bwrap = status.available ? status.bwrap : "bwrap";
      const child = spawn("/bin/sh", ["-c", `${prefix}exec "$0" "$@"`, bwrap, ...args], { stdio: ["ignore", "pipe", "inherit"] });
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.on("close", () => resolve(out));
    });
  }

  it("sets every limit inside the sandbox, with bash's ulimit and with prlimit", async () => {
    const limits = { cpuSeconds: 7, memoryBytes: 300 * 1024 * 1024, processes: 20, fileSizeBytes: 5 * 1024 * 1024, openFiles: 64 };
    const script = "ulimit -t; ulimit -v; ulimit -f; ulimit -n; ulimit -c; head -c 6000000 /dev/zero > big 2>/dev/null; stat -c %s big";
    const expected = `7\n${300 * 1024}\n${5 * 1024}\n64\n0\n${5 * 1024 * 1024}\n`;
    const viaDefault = await runSandboxed(["/bin/bash", "-c", script], { workspace: ws.dir, limits });
    expect(viaDefault.stdout).toBe(expected);
    const userns = status.available && status.userns;
    for (const limiter of ["bash", "prlimit"] as const) {
      const args = buildSandboxArgs(["/bin/bash", "-c", script], { workspace: ws.dir, limits }, { userns, limiter });
      expect(await rawBwrap(args)).toBe(expected);
    }
  });

  it("lets no inherited descriptor but 0, 1 and 2 reach the command", async () => {
    const args = buildSandboxArgs(
      ["/bin/sh", "-c", "ls /proc/self/fd | sort -n | tr '\\n' ' '"],
      { workspace: ws.dir },
      { userns: status.available && status.userns },
    );
    // fd 7 is a directory outside the sandbox, fd 9 a file: both leaked into bwrap on purpose.
    const out = await rawBwrap(args, `exec 7<'${os.tmpdir()}' 9<'${path.join(ws.dir, "..")}'; `);
    expect(
      out
        .trim()
        .split(" ")
        .map(Number)
        .filter((n) => n > 2 && n !== 3),
    ).toEqual([]);
  });

  it("leaves no cgroup with tasks in it, and keeps at most a few idle ones", async () => {
    for (let i = 0; i < 6; i++) await runSandboxed(["/bin/true"], { workspace: ws.dir });
    await Promise.all([1, 2, 3].map(() => runSandboxed(["/bin/true"], { workspace: ws.dir })));
    await new Promise((res) => setTimeout(res, 300));
    const ours = ["/sys/fs/cgroup/pids", "/sys/fs/cgroup"].flatMap((root) => {
      try {
        return readdirSync(root)
          .filter((n) => n.startsWith(`tackle-sandbox-${process.pid}-`))
          .map((n) => path.join(root, n));
      } catch {
        return [];
      }
    });
    expect(ours.length).toBeLessThanOrEqual(4);
    for (const dir of ours) expect(readFileSync(path.join(dir, "cgroup.procs"), "utf8").trim()).toBe("");
  });

  it("gives POSIX shared memory a place in the private /tmp", async () => {
    const r = await runSandboxed(["/usr/bin/python3", "-c", "import multiprocessing as m\nl = m.Lock()\nwith l: print('locked')"], {
      workspace: ws.dir,
    });
    expect(r.stdout).toBe("locked\n");
  });

  it.skipIf(process.getuid?.() !== 0)("as root without a cgroup, the watcher stops a process flood", async () => {
    const code =
      "import os, time\nfor i in range(300):\n    try:\n        pid = os.fork()\n    except " +
      "OSError:\n        break\n    if pid == 0:\n        time.sleep(30); os._exit(0)\ntime.sleep(30)";
    const r = await runSandboxed(["/usr/bin/python3", "-c", code], {
      workspace: ws.dir,
      cgroup: false,
      limits: { processes: 16 },
      timeoutMs: 20_000,
    });
    expect(r.processGuard).toBe("watcher");
    expect(r.limit).toBe("processes");
    expect(r.timedOut).toBe(false);
  });
});
