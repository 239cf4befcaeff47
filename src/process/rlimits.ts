import { isExecutableFile } from "./find-executable.js";

/** Resource limits for a process tackle starts (each one optional). */
export interface ProcessLimits {
  /** CPU seconds (RLIMIT_CPU): SIGXCPU at the limit, SIGKILL one second later. */
  cpuSeconds?: number;
  /**
   * Memory the process may write, in bytes (RLIMIT_DATA). Not RLIMIT_AS: V8 and other runtimes
   * reserve far more address space than they use, and a 1 GB address-space limit stops a Node
   * server before it answers, while a 1 GB data limit holds it to about 1 GB of real allocations.
   */
  memoryBytes?: number;
  /** Open file descriptors (RLIMIT_NOFILE). */
  openFiles?: number;
}

let prlimitPath: string | null | undefined;
let bashPath: string | null | undefined;

/**
 * `argv` started under `limits`: through prlimit (util-linux), which sets them and execs, so the
 * process keeps the pid tackle tracks; else through bash's ulimit and exec. Throws when neither
 * exists, so limits are never silently dropped.
 */
export function withProcessLimits(argv: readonly string[], limits: ProcessLimits): string[] {
  const set = Object.entries(limits).filter(([, v]) => v !== undefined) as Array<[keyof ProcessLimits, number]>;
  if (set.length === 0) return [...argv];
  for (const [name, value] of set) {
    if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`The limit ${name} must be a positive whole number, not ${value}.`);
  }
  prlimitPath ??= ["/usr/bin/prlimit", "/bin/prlimit", "/usr/sbin/prlimit"].find(isExecutableFile) ?? null;
  if (prlimitPath) {
    const flags = set.map(([name, value]) =>
      name === "cpuSeconds" ? `--cpu=${value}:${value + 1}` : name === "memoryBytes" ? `--data=${value}` : `--nofile=${value}`,
    );
    return [prlimitPath, ...flags, "--", ...argv];
  }
  bashPath ??= ["/usr/bin/bash", "/bin/bash"].find(isExecutableFile) ?? null;
  if (!bashPath) throw new Error("Neither prlimit (util-linux) nor bash is installed, so the process limits cannot be set.");
  // bash's units: -t in seconds, -d in KiB.
  const ulimits = set.map(([name, value]) =>
    name === "cpuSeconds"
      ? `ulimit -S -t ${value} && ulimit -H -t ${value + 1}`
      : name === "memoryBytes"
        ? `ulimit -d ${Math.max(1, Math.floor(value / 1024))}`
        : `ulimit -n ${value}`,
  );
  return [bashPath, "-c", `${ulimits.join(" && ")} && exec "$@"`, "tackle-limits", ...argv];
}
