import type { ChildProcess } from "node:child_process";
import { spawn } from "../process/child-process.js";
import type { Readable, Writable } from "node:stream";
import { existsSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { ToolError } from "../core/errors.js";
import { BoundedOutput } from "../process/bounded-output.js";
import { descendantsOf, killProcessTree } from "../process/process-tree.js";
import { createPidsCgroup, type PidsCgroup } from "./cgroup.js";
import { seccompProgram } from "./seccomp.js";
import { limitedArgv, nprocHolds, SANDBOX_OVERHEAD_TASKS, sandboxLimits } from "./limits.js";
import { isExecutableFile } from "../process/find-executable.js";
import { prepareSystem, systemArgs } from "./rootfs.js";
import type { SandboxLimits, SandboxSettings } from "./config.js";
import { findExecutable } from "../process/find-executable.js";
import { Workspace } from "../workspace/workspace.js";
import { overlayArgv, type Overlay } from "./overlay.js";
import { capture, SANDBOX_PATH } from "./capture.js";
import { forgetProbes, probeKey, recalledProbe, rememberProbe } from "./probe-memo.js";
import { envArgs, hideArgs, pinArgs, procHardening, protectArgs, PROTECTED_IN_WORKSPACE } from "./mounts.js";

/*
 * The bubblewrap sandbox. What holds, and why:
 *
 * - Namespaces: `--unshare-all` (user, mount, pid, net, ipc, uts, cgroup) plus an explicit user
 *   namespace with `--disable-userns`, so code cannot build further namespaces; `--cap-drop ALL`
 *   so even tackle-as-root leaves the code with no capabilities; `--die-with-parent` and
 *   `--new-session` (no TIOCSTI into our terminal). The pid namespace means the code sees only its
 *   own processes in /proc, and when the sandbox's init dies the kernel kills everything in it.
 * - Files: the root is an empty tmpfs remounted read-only at the end. /usr (and /bin, /lib*,
 *   /sbin, as symlinks or read-only binds) is read-only; /etc is a read-only copy, made once per
 *   process, of a short list of world-readable files, with a synthesised passwd and group.
 *   /tmp and /dev/shm are fresh, size-limited tmpfs; /dev holds only the usual devices. The
 *   workspace is the only host folder bound read-write; its .git and tackle's configuration are
 *   re-bound read-only on top, so sandboxed code cannot plant a git hook or grant itself
 *   permissions. Nothing else (home, /root, /work, /var, /run, the workspace's extra roots)
 *   exists inside, so a symlink that points there dangles. Programs come in as files made from
 *   memory (`files`), never through a shell string or a file on the host.
 * - Network: a fresh network namespace with only a loopback of its own: not even the host's
 *   127.0.0.1 is reachable. `network: true` shares the host's instead.
 * - Environment: `--clearenv`, then PATH, HOME=/tmp, TMPDIR=/tmp, LANG=C.UTF-8, USER, and the
 *   caller's variables.
 * - Descriptors: none but stdin, stdout and stderr reach the command; the limiter closes any
 *   other it inherited (./sandbox-limits.ts).
 * - Limits: bash's ulimit sets RLIMIT_CPU, RLIMIT_AS, RLIMIT_NPROC, RLIMIT_FSIZE, RLIMIT_NOFILE
 *   and RLIMIT_CORE inside the sandbox right before the command (prlimit where bash is missing). RLIMIT_NPROC is counted per user namespace on Linux >= 5.14,
 *   so for non-root users it bounds the sandbox's own tasks. The kernel ignores it for real
 *   root: there each run gets a pids cgroup (./sandbox-cgroup.ts), joined while bwrap waits on
 *   --block-fd, before anything runs inside. Where no cgroup can be made, a watcher counts the
 *   run's processes every 50 ms and kills the run above the limit (a bound, not a hard cap).
 *   Memory is bounded per process (address space): a run holds at most processes x memory plus
 *   the tmpfs sizes. Disk use inside the workspace is bounded per file, not in total.
 * - System calls: a seccomp filter (./sandbox-seccomp.ts, x86-64 and arm64) refuses keyrings,
 *   bpf, perf, userfaultfd, io_uring, mount and module calls, and foreign-ABI calls.
 */

/** A host path mounted read-only inside the sandbox (at the same place unless `target` says). */
export interface SandboxBind {
  source: string;
  target?: string;
}

/** A file created inside the sandbox with the given content. */
export interface SandboxFile {
  /** Absolute path inside the sandbox (outside the workspace: a place only the sandbox has, e.g. /run/...). */
  target: string;
  content: string | Buffer;
}

/** Where and how a command runs inside the sandbox. */
export interface SandboxOptions {
  /** The workspace root (absolute, real path): mounted read-write at the same path. */
  workspace: string;
  /** Mount the workspace read-only too: for commands judged to only read (defence in depth). */
  workspaceReadOnly?: boolean;
  /**
   * Run on a copy-on-write view of the workspace (./overlay.ts): what the command writes lands in
   * the overlay's upper folder, and the workspace itself is left as it was.
   */
  overlay?: Overlay;
  /**
   * Entries of the workspace the sandbox must not see (files that may hold secrets): a file is
   * replaced by one that cannot be opened, a folder by an empty read-only one. Symlinks are skipped.
   */
  hidden?: readonly string[];
  /** Working directory inside the sandbox; must be inside the workspace. Default the workspace. */
  cwd?: string;
  /** Share the host's network. Default false: a private network namespace with nothing in it. */
  network?: boolean;
  /** Variables added to the minimal environment (PATH, HOME=/tmp, LANG, TMPDIR). */
  env?: Readonly<Record<string, string>>;
  /** Resource limits; missing fields take DEFAULT_SANDBOX_LIMITS (./sandbox-config.ts). */
  limits?: Partial<SandboxLimits>;
  /** Extra host paths mounted read-only (an interpreter outside /usr, the code file). */
  readOnly?: ReadonlyArray<string | SandboxBind>;
  /**
   * Files made inside the sandbox from memory, read-only (bwrap's --ro-bind-data): the program
   * to run, with no copy on the host's disk. bwrap reads file i from fd 3 + i (5 + i when a pids
   * cgroup is used); {@link spawnSandboxed} supplies them.
   */
  files?: ReadonlyArray<SandboxFile>;
  /** The bubblewrap binary: a path, or a name looked up on PATH. Default `bwrap`. */
  bwrap?: string;
}

/** Whether the sandbox can run here, found once per bwrap path. */
export type SandboxStatus =
  { available: true; bwrap: string; version: string; userns: boolean } | { available: false; bwrap?: string; reason: string };

/** What to do when bubblewrap is missing. */
export const SANDBOX_INSTALL_HINT =
  "Install bubblewrap: `sudo apt-get install bubblewrap` (Debian, Ubuntu), `sudo dnf install bubblewrap` (Fedora), " +
  "`sudo pacman -S bubblewrap` (Arch), or `apk add bubblewrap` (Alpine).";

/**
 * Sandbox options from the configuration's `sandbox` section (see ./sandbox-config.ts), for a
 * tool that opts into the sandbox: `spawnSandboxed(["/bin/bash", "-c", cmd], sandboxOptionsFrom(settings, root))`.
 */
export function sandboxOptionsFrom(settings: SandboxSettings, workspace: string): SandboxOptions {
  return {
    workspace,
    network: settings.network,
    limits: settings.limits,
    readOnly: settings.readOnlyPaths,
    ...(settings.bwrap ? { bwrap: settings.bwrap } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Detection

const probes = new Map<string, Promise<SandboxStatus>>();

/**
 * Whether bubblewrap is installed and can create the namespaces the sandbox uses, tried once per
 * bwrap path and cached: a real sandbox is started (running `true`) with the same flags and
 * limiter as every run.
 */
export function sandboxAvailable(options: { bwrap?: string } = {}): Promise<SandboxStatus> {
  const key = options.bwrap ?? "bwrap";
  let probe = probes.get(key);
  if (!probe) {
    probe = probeSandbox(key);
    probes.set(key, probe);
  }
  return probe;
}

/** Forgets detection results, this process's and those remembered for later ones (for tests, or after installing bubblewrap). */
export function resetSandboxDetection(): void {
  probes.clear();
  forgetProbes();
}

export { seccompProgram, BLOCKED_SYSCALLS } from "./seccomp.js";
export { sandboxLimits } from "./limits.js";

/** The error every sandboxed tool returns when the sandbox cannot run: never a silent fallback. */
export function sandboxUnavailableError(status: Extract<SandboxStatus, { available: false }>, what = "This tool"): ToolError {
  return new ToolError(
    "UNAVAILABLE",
    `${what} runs code only inside a bubblewrap sandbox, and the sandbox is not available: ${status.reason} ` +
      `Nothing was run (tackle never runs it unsandboxed). Tell the user so they can fix it.`,
    { recoverable: false, details: { reason: status.reason } },
  );
}

async function probeSandbox(name: string): Promise<SandboxStatus> {
  const bwrap = findExecutable(name, { dirs: [...(process.env.PATH ?? "").split(":"), "/usr/bin", "/usr/local/bin", "/bin"] });
  if (!bwrap) {
    return {
      available: false,
      reason: `bubblewrap (\`${name}\`) is not installed or not executable. ${SANDBOX_INSTALL_HINT}`,
    };
  }
  // The sandbox's /etc is prepared only where bubblewrap is there to use it.
  const prepared = await prepareSystem().then(
    () => undefined,
    (err: unknown) => err as Error,
  );
  if (prepared) return { available: false, bwrap, reason: `the sandbox's /etc could not be prepared: ${prepared.message}` };
  const trueCmd = ["/usr/bin/true", "/bin/true"].find(isExecutableFile) ?? "true";
  const program = seccompProgram();
  const inputs = program ? [program] : [];
  // First with a user namespace of our own (needed for --disable-userns); setuid builds of
  // bwrap on systems without unprivileged user namespaces may only manage the rest.
  const argsFor = (userns: boolean): string[] | Error => {
    try {
      return buildArgs(
        [trueCmd],
        { workspace: undefined, limits: { cpuSeconds: 5 } },
        userns,
        undefined,
        program ? { seccomp: 3, firstFile: 4 } : { firstFile: 3 },
      );
    } catch (err) {
      return err as Error;
    }
  };
  const cannotSetUp = (err: Error): SandboxStatus => ({ available: false, bwrap, reason: `the sandbox cannot be set up: ${err.message}` });
  const withUserns = argsFor(true);
  if (withUserns instanceof Error) return cannotSetUp(withUserns);
  const key = probeKey(bwrap, withUserns, program);
  const remembered = key === undefined ? undefined : recalledProbe(key);
  if (remembered) return { available: true, bwrap, ...remembered };

  const [version, first] = await Promise.all([capture(bwrap, ["--version"]), capture(bwrap, withUserns, inputs)]);
  if (version.code !== 0) {
    return {
      available: false,
      bwrap,
      reason: `\`${bwrap} --version\` failed (${version.err.trim() || `exit ${version.code}`}). ${SANDBOX_INSTALL_HINT}`,
    };
  }
  let userns = true;
  let run = first;
  const failures: string[] = [];
  if (run.code !== 0) {
    failures.push(run.err.trim() || `exit code ${run.code}`);
    const withoutUserns = argsFor(false);
    if (withoutUserns instanceof Error) return cannotSetUp(withoutUserns);
    userns = false;
    run = await capture(bwrap, withoutUserns, inputs);
    if (run.code !== 0) failures.push(run.err.trim() || `exit code ${run.code}`);
  }
  if (run.code === 0) {
    const found = { version: version.out.trim(), userns };
    if (key !== undefined) rememberProbe(key, found);
    return { available: true, bwrap, ...found };
  }
  return {
    available: false,
    bwrap,
    reason:
      `bubblewrap is installed (${bwrap}) but cannot create a sandbox here: ${failures[0]}. ` +
      "It needs unprivileged user namespaces (check `sysctl kernel.unprivileged_userns_clone` and, on Ubuntu 24.04+, " +
      "`kernel.apparmor_restrict_unprivileged_userns`), or a container started with permission to create namespaces.",
  };
}

// ---------------------------------------------------------------------------------------------
// The command line

/** The sandbox options the command line is built from; the workspace may be absent (no mount). */
type BuildInput = Omit<SandboxOptions, "workspace" | "bwrap"> & { workspace: string | undefined };

/** Descriptors bwrap reads from: the seccomp program, then one per file made from memory. */
interface InputFds {
  seccomp?: number;
  firstFile: number;
}

function buildArgs(
  argv: readonly string[],
  o: BuildInput,
  userns: boolean,
  forceLimiter?: "prlimit" | "bash",
  fds: InputFds = { firstFile: 3 },
): string[] {
  if (argv.length === 0) throw new Error("Nothing to run: the command is empty.");
  const limits = sandboxLimits(o.limits);
  const args = ["--unshare-all"];
  if (o.network) args.push("--share-net");
  if (userns) args.push("--unshare-user", "--disable-userns");
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--hostname", "sandbox");
  if (fds.seccomp !== undefined) args.push("--seccomp", String(fds.seccomp));

  args.push(...envArgs({ PATH: SANDBOX_PATH, HOME: "/tmp", TMPDIR: "/tmp", LANG: "C.UTF-8", USER: "sandbox", ...o.env }));

  args.push(...systemArgs());
  // Where names resolve, only when they can be reached.
  if (o.network && existsSync("/etc/resolv.conf")) args.push("--ro-bind", "/etc/resolv.conf", "/etc/resolv.conf");
  args.push("--proc", "/proc", ...procHardening(), "--dev", "/dev");
  args.push("--size", String(limits.tmpBytes), "--tmpfs", "/dev/shm");
  args.push("--size", String(limits.tmpBytes), "--tmpfs", "/tmp");

  for (const entry of o.readOnly ?? []) {
    const bind = typeof entry === "string" ? { source: entry } : entry;
    const target = bind.target ?? bind.source;
    if (!path.isAbsolute(bind.source) || !path.isAbsolute(target)) throw new Error(`Sandbox binds need absolute paths: ${bind.source}.`);
    args.push("--ro-bind", bind.source, target);
  }

  (o.files ?? []).forEach((file, i) => {
    if (!path.isAbsolute(file.target)) throw new Error(`Sandbox files need absolute paths: ${file.target}.`);
    args.push("--perms", "0444", "--ro-bind-data", String(fds.firstFile + i), file.target);
  });

  let cwd = "/tmp";
  if (o.workspace !== undefined) {
    const ws = o.workspace;
    if (!path.isAbsolute(ws)) throw new Error(`The workspace must be an absolute path: ${ws}.`);
    args.push(o.workspaceReadOnly ? "--ro-bind" : "--bind", o.overlay?.merged ?? ws, ws);
    if (!o.workspaceReadOnly && !o.overlay) args.push(...pinArgs(ws, o.hidden ?? []));
    args.push(...protectArgs(ws, PROTECTED_IN_WORKSPACE));
    args.push(...hideArgs(ws, o.hidden ?? []));
    cwd = o.cwd ?? ws;
    if (!Workspace.isInside(ws, cwd)) throw new Error(`The working directory ${cwd} is outside the workspace ${ws}.`);
  }
  // Read-only last, after every mount point has been made on them.
  args.push("--remount-ro", "/dev", "--remount-ro", "/");
  args.push("--chdir", cwd, "--", ...limitedArgv(argv, limits, forceLimiter));
  return args;
}

/**
 * The bubblewrap arguments (everything after the `bwrap` binary) that run `argv` in the
 * sandbox with its limits. Pure apart from cached system lookups; spawn `bwrap` with them
 * yourself (supplying fd `seccompFd` with {@link seccompProgram} and the files' fds after it),
 * or use {@link spawnSandboxed}, which does that and applies the process guard.
 */
export function buildSandboxArgs(
  argv: readonly string[],
  options: SandboxOptions,
  profile: { userns?: boolean; limiter?: "prlimit" | "bash"; seccompFd?: number } = {},
): string[] {
  const fds: InputFds =
    profile.seccompFd === undefined ? { firstFile: 3 } : { seccomp: profile.seccompFd, firstFile: profile.seccompFd + 1 };
  return buildArgs(argv, options, profile.userns ?? true, profile.limiter, fds);
}

// ---------------------------------------------------------------------------------------------
// Running

/** A started sandbox. */
export interface SandboxedProcess {
  /** The bwrap process (own process group); stdout and stderr are pipes. */
  readonly child: ChildProcess;
  readonly pid: number;
  /** How the task limit is enforced for this run. */
  readonly processGuard: "cgroup" | "rlimit" | "watcher";
  /** Settles when bwrap has exited and its output pipes have closed. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Set when the watcher killed the run for having too many processes. */
  readonly limitHit: "processes" | undefined;
  /** Kills the whole sandbox: bwrap, its init, and every process inside. */
  kill(): Promise<void>;
}

export interface SpawnSandboxedOptions extends SandboxOptions {
  /** Text written to the command's stdin; without it stdin is /dev/null. */
  input?: string | Buffer;
  /** Use a pids cgroup when one can be made (default true); false leaves RLIMIT_NPROC and the watcher. */
  cgroup?: boolean;
}

/**
 * Starts `argv` inside the sandbox. Throws UNAVAILABLE (saying how to install bubblewrap) when
 * the sandbox cannot run; it never falls back to running unsandboxed.
 */
export async function spawnSandboxed(argv: readonly string[], options: SpawnSandboxedOptions): Promise<SandboxedProcess> {
  const status = await sandboxAvailable(options.bwrap === undefined ? {} : { bwrap: options.bwrap });
  if (!status.available) throw sandboxUnavailableError(status);
  const limits = sandboxLimits(options.limits);

  const maxTasks = limits.processes + SANDBOX_OVERHEAD_TASKS;
  // Where RLIMIT_NPROC holds, the cgroup is not needed.
  const cgroup: PidsCgroup | undefined = options.cgroup === false || nprocHolds() ? undefined : createPidsCgroup(maxTasks);
  const processGuard = cgroup ? "cgroup" : nprocHolds() ? "rlimit" : "watcher";

  // With a cgroup, bwrap reports its child's pid (--info-fd 3) and then waits (--block-fd 4)
  // after building the sandbox and before starting anything in it; the child joins the cgroup in
  // that pause, so no process of the run ever exists outside it. No shell in between.
  const files = options.files ?? [];
  const program = seccompProgram(process.arch, { noUnixSockets: !options.network });
  // Extra descriptors, in order: cgroup info and release, the seccomp program, the files.
  const inputs: Array<string | Buffer> = [...(program ? [program] : []), ...files.map((f) => f.content)];
  const firstInput = cgroup ? 5 : 3;
  const fds: InputFds = program ? { seccomp: firstInput, firstFile: firstInput + 1 } : { firstFile: firstInput };
  let args: string[];
  try {
    args = buildArgs(argv, { ...options, limits }, status.userns, undefined, fds);
  } catch (err) {
    if (cgroup) void cgroup.remove();
    throw err;
  }
  const command = [status.bwrap, ...(cgroup ? ["--info-fd", "3", "--block-fd", "4"] : []), ...args];
  let argv0: string[];
  try {
    argv0 = options.overlay ? await overlayArgv(options.workspace, options.overlay, command) : command;
  } catch (err) {
    if (cgroup) void cgroup.remove();
    throw err;
  }
  const child = spawn(argv0[0]!, argv0.slice(1), {
    stdio: [
      options.input === undefined ? "ignore" : "pipe",
      "pipe",
      "pipe",
      ...(cgroup ? (["pipe", "pipe"] as const) : []),
      ...inputs.map(() => "pipe" as const),
    ],
    detached: true,
    env: { PATH: SANDBOX_PATH },
  });
  if (options.input !== undefined) {
    child.stdin!.on("error", () => {});
    child.stdin!.end(options.input);
  }
  inputs.forEach((data, i) => {
    const pipe = child.stdio[firstInput + i] as Writable;
    pipe.on("error", () => {});
    pipe.end(data);
  });
  if (cgroup) joinCgroupWhenReady(child, cgroup, () => void killProcessTree(child.pid ?? -1));

  let limitHit: "processes" | undefined;
  let watcher: NodeJS.Timeout | undefined;
  const kill = async () => {
    if (child.pid !== undefined) await killProcessTree(child.pid);
  };

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    let settled = false;
    const done = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      if (watcher) clearInterval(watcher);
      // The cgroup empties a moment after exit; removing it need not delay the result.
      if (cgroup) void cgroup.remove();
      resolve({ code, signal });
    };
    child.on("error", (err) => {
      child.stderr?.emit("data", Buffer.from(`tackle: cannot start bubblewrap: ${err.message}\n`));
      done(127, null);
    });
    child.on("close", done);
  });

  if (processGuard === "watcher" && child.pid !== undefined) {
    const pid = child.pid;
    watcher = setInterval(() => {
      void descendantsOf(pid).then((list) => {
        if (list.length > maxTasks && !limitHit) {
          limitHit = "processes";
          void kill();
        }
      });
    }, 50);
    watcher.unref();
  }

  return {
    child,
    pid: child.pid ?? -1,
    processGuard,
    exited,
    get limitHit() {
      return limitHit;
    },
    kill,
  };
}

/** Puts bwrap's child in the cgroup when bwrap reports it, then lets it go on; kills the run if that fails. */
function joinCgroupWhenReady(child: ChildProcess, cgroup: PidsCgroup, kill: () => void): void {
  const info = child.stdio[3] as Readable;
  const release = child.stdio[4] as Writable;
  info.on("error", () => {});
  release.on("error", () => {});
  let text = "";
  let joined = false;
  const fail = (why: string) => {
    // Without the cgroup the process limit would not hold as root: nothing may start.
    child.stderr?.emit("data", Buffer.from(`tackle: the sandbox was stopped before starting: ${why}\n`));
    kill();
  };
  info.on("data", (chunk: Buffer) => {
    if (joined) return;
    text += chunk.toString();
    const pid = /"child-pid"\s*:\s*(\d+)/.exec(text)?.[1];
    if (!pid) return;
    joined = true;
    try {
      writeFileSync(path.join(cgroup.dir, "cgroup.procs"), pid);
    } catch (err) {
      fail(`cannot join the pids cgroup (${(err as Error).message})`);
      return;
    }
    release.end("go");
  });
  info.on("end", () => {
    // Closing the release pipe would let the child go on unguarded: stop it instead.
    if (!joined && child.exitCode === null && child.signalCode === null) fail("bubblewrap did not report its child's pid");
  });
}

/** How a sandboxed run ended. */
export interface SandboxRunResult {
  stdout: string;
  stderr: string;
  /** The command's exit code; 128 + n when signal n killed it; -1 when tackle killed the sandbox. */
  exitCode: number;
  /** Milliseconds from start to exit. */
  durationMs: number;
  timedOut: boolean;
  cancelled: boolean;
  /** A limit that ended the run, when one can be told from how it ended. */
  limit?: "cpu" | "fileSize" | "processes";
  /** Output bytes dropped from the middle of stdout / stderr to stay in bounded memory. */
  droppedBytes: { stdout: number; stderr: number };
  processGuard: SandboxedProcess["processGuard"];
}

export interface RunSandboxedOptions extends SpawnSandboxedOptions {
  /** Wall-clock limit; the whole sandbox is killed when it passes. */
  timeoutMs?: number;
  /** Aborting kills the whole sandbox. */
  signal?: AbortSignal;
  /** Output as it arrives, decoded as UTF-8 without splitting characters. */
  onOutput?: (chunk: string, stream: "stdout" | "stderr") => void;
  /** Bytes kept per stream (head and tail); default 1 MiB. */
  maxOutputBytes?: number;
}

const SIGXCPU_EXIT = 128 + (os.constants.signals.SIGXCPU ?? 24);
const SIGXFSZ_EXIT = 128 + (os.constants.signals.SIGXFSZ ?? 25);

/** Runs `argv` in the sandbox to the end, streaming its output and keeping a bounded copy. */
export async function runSandboxed(argv: readonly string[], options: RunSandboxedOptions): Promise<SandboxRunResult> {
  if (options.signal?.aborted) throw new ToolError("CANCELLED", "The run was cancelled before it started.");
  const started = performance.now();
  const proc = await spawnSandboxed(argv, options);
  const max = options.maxOutputBytes ?? 1024 * 1024;
  const out = { stdout: new BoundedOutput(max), stderr: new BoundedOutput(max) };
  for (const stream of ["stdout", "stderr"] as const) {
    const decoder = new StringDecoder("utf8");
    const pipe = proc.child[stream]!;
    pipe.on("data", (chunk: Buffer) => {
      out[stream].push(chunk);
      if (options.onOutput) {
        const text = decoder.write(chunk);
        if (text) options.onOutput(text, stream);
      }
    });
    pipe.on("end", () => {
      const rest = decoder.end();
      if (rest && options.onOutput) options.onOutput(rest, stream);
    });
  }

  let timedOut = false;
  let cancelled = false;
  const timer =
    options.timeoutMs !== undefined
      ? setTimeout(() => {
          timedOut = true;
          void proc.kill();
        }, options.timeoutMs)
      : undefined;
  const onAbort = () => {
    cancelled = true;
    void proc.kill();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let ended: { code: number | null; signal: NodeJS.Signals | null };
  try {
    ended = await proc.exited;
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    // Nothing outlives bwrap: its init dies with it (--die-with-parent) and takes the pid namespace along.
  }
  const exitCode = ended.code ?? -1;
  const limit = proc.limitHit ?? (exitCode === SIGXCPU_EXIT ? "cpu" : exitCode === SIGXFSZ_EXIT ? "fileSize" : undefined);
  return {
    stdout: out.stdout.text(),
    stderr: out.stderr.text(),
    exitCode,
    durationMs: performance.now() - started,
    timedOut,
    cancelled,
    ...(limit ? { limit } : {}),
    droppedBytes: { stdout: out.stdout.droppedBytes, stderr: out.stderr.droppedBytes },
    processGuard: proc.processGuard,
  };
}
