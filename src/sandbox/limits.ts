import os from "node:os";
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./config.js";
import { isExecutableFile } from "../process/find-executable.js";

/*
 * Resource limits inside the sandbox: set by bash's ulimit (or prlimit) right before the command.
 */

/** Tasks besides the code's own: bwrap outside, bwrap as init inside, and slack for the limiter's exec. */
export const SANDBOX_OVERHEAD_TASKS = 3;
let limiterCache: { kind: "prlimit" | "bash"; path: string } | null | undefined;

/**
 * bash where there is one: besides the limits, it closes every inherited descriptor above 2
 * (a descriptor tackle's own parent leaked without close-on-exec would otherwise cross into the
 * sandbox: a directory one is a way out). Otherwise prlimit (util-linux), limits only.
 */
function limiter(): { kind: "prlimit" | "bash"; path: string } | null {
  if (limiterCache !== undefined) return limiterCache;
  const prlimit = ["/usr/bin/prlimit", "/bin/prlimit", "/usr/sbin/prlimit"].find(isExecutableFile);
  const bash = bashLimiter();
  limiterCache = bash ?? (prlimit ? { kind: "prlimit", path: prlimit } : null);
  return limiterCache;
}

function prlimitLimiter(): { kind: "prlimit"; path: string } | undefined {
  const prlimit = ["/usr/bin/prlimit", "/bin/prlimit", "/usr/sbin/prlimit"].find(isExecutableFile);
  return prlimit ? { kind: "prlimit", path: prlimit } : undefined;
}

/**
 * Whether RLIMIT_NPROC bounds the sandbox by itself: not for real root (the kernel exempts it),
 * and not before Linux 5.14, where it counted every process of the user on the host rather than
 * those in the sandbox's user namespace (there it is not set at all, see {@link limitedArgv}).
 */
export function nprocHolds(): boolean {
  return process.getuid?.() !== 0 && kernelAtLeast(5, 14);
}

function kernelAtLeast(major: number, minor: number): boolean {
  const [a = 0, b = 0] = os.release().split(/[.-]/).map(Number);
  return a > major || (a === major && b >= minor);
}

function bashLimiter(): { kind: "bash"; path: string } | undefined {
  const bash = ["/usr/bin/bash", "/bin/bash"].find(isExecutableFile);
  return bash ? { kind: "bash", path: bash } : undefined;
}

/** Limits with defaults filled in. */
export function sandboxLimits(partial: Partial<SandboxLimits> = {}): SandboxLimits {
  const out = { ...DEFAULT_SANDBOX_LIMITS };
  for (const [key, value] of Object.entries(partial) as Array<[keyof SandboxLimits, number | undefined]>) {
    if (value !== undefined) {
      if (!Number.isFinite(value) || value <= 0) throw new Error(`Sandbox limit ${key} must be a positive number, not ${value}.`);
      out[key] = Math.floor(value);
    }
  }
  return out;
}

/** argv wrapped so the limits are set inside the sandbox right before the command runs. */
export function limitedArgv(argv: readonly string[], limits: SandboxLimits, force?: "prlimit" | "bash"): string[] {
  const lim = (force === "bash" ? bashLimiter() : force === "prlimit" ? prlimitLimiter() : undefined) ?? limiter();
  if (!lim) throw new Error("Neither bash nor prlimit (util-linux) is installed, so the sandbox cannot set resource limits.");
  const nproc = limits.processes + SANDBOX_OVERHEAD_TASKS;
  // Before 5.14 the count was host-wide per user: a limit this low could forbid any fork at all.
  const setNproc = kernelAtLeast(5, 14);
  if (lim.kind === "prlimit") {
    return [
      lim.path,
      `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
      `--as=${limits.memoryBytes}`,
      ...(setNproc ? [`--nproc=${nproc}`] : []),
      `--fsize=${limits.fileSizeBytes}`,
      `--nofile=${limits.openFiles}`,
      "--core=0",
      "--",
      ...argv,
    ];
  }
  // bash (not sh) so the units are bash's: -v and -f in KiB; limits are numbers we computed.
  // `exec {n}>&-` closes descriptor $n; the glob's own descriptor is already closed by then.
  const kib = (n: number) => Math.max(1, Math.floor(n / 1024));
  const script =
    `for f in /proc/self/fd/*; do n=\${f##*/}; if [ "$n" -gt 2 ]; then exec {n}>&-; fi; done; ` +
    `ulimit -S -t ${limits.cpuSeconds} && ulimit -H -t ${limits.cpuSeconds + 1} && ulimit -v ${kib(limits.memoryBytes)} && ` +
    `${setNproc ? `ulimit -u ${nproc} && ` : ""}ulimit -f ${kib(limits.fileSizeBytes)} && ulimit -n ${limits.openFiles} && ulimit -c 0 && exec "$@"`;
  return [lim.path, "-c", script, "tackle-limits", ...argv];
}
