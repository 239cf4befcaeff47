import { z } from "zod";
import { describeIssues, formatIssues, asSentence } from "../core/schema.js";

/** Resource limits for one sandboxed run. Each holds per run, not per tackle process. */
export interface SandboxLimits {
  /** CPU seconds (RLIMIT_CPU): SIGXCPU at the limit, SIGKILL one second later. */
  cpuSeconds: number;
  /** Address space of each process in bytes (RLIMIT_AS). */
  memoryBytes: number;
  /** Tasks (processes and threads) alive at once: a pids cgroup where one can be made, RLIMIT_NPROC in the user namespace, a watcher otherwise. */
  processes: number;
  /** Largest file a process may write, in bytes (RLIMIT_FSIZE). */
  fileSizeBytes: number;
  /** Open file descriptors per process (RLIMIT_NOFILE). */
  openFiles: number;
  /** Size of the private /tmp (and /dev/shm) tmpfs, in bytes. */
  tmpBytes: number;
}

const MB = 1024 * 1024;

export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  cpuSeconds: 60,
  memoryBytes: 1024 * MB,
  processes: 128,
  fileSizeBytes: 100 * MB,
  openFiles: 256,
  tmpBytes: 256 * MB,
});

/**
 * The `sandbox` section of tackle.config.json. Sizes are in megabytes there because people
 * write them by hand; {@link sandboxSettingsFrom} turns them into bytes.
 */
export const SandboxConfigSchema = z
  .object({
    /** Let sandboxed code reach the network (the host's network namespace). Default false. */
    network: z.boolean().default(false),
    /** Path of the bubblewrap binary; default `bwrap` looked up in the usual places. */
    bwrap: z.string().min(1).optional(),
    /** Python interpreter to run inside the sandbox; default /usr/bin/python3 or the `python3` on PATH. */
    python: z.string().min(1).optional(),
    /** Extra host paths mounted read-only at the same place (tool chains outside /usr). */
    readOnlyPaths: z.array(z.string().min(1)).default([]),
    limits: z
      .object({
        cpuSeconds: z.number().int().positive().max(86_400).optional(),
        memoryMb: z.number().int().min(16).max(1_048_576).optional(),
        processes: z.number().int().min(4).max(32_768).optional(),
        fileSizeMb: z.number().int().positive().max(1_048_576).optional(),
        openFiles: z.number().int().min(16).max(1_048_576).optional(),
        tmpMb: z.number().int().positive().max(1_048_576).optional(),
      })
      .strict()
      .default({}),
  })
  .strict();

/** The sandbox section, validated, with sizes in bytes. */
export interface SandboxSettings {
  network: boolean;
  bwrap?: string;
  python?: string;
  readOnlyPaths: string[];
  limits: SandboxLimits;
}

/**
 * Reads `config.sandbox` (loose configuration from tackle.config.json). Throws an Error that
 * names the field when the section is invalid, so a typo never silently weakens the sandbox.
 */
export function sandboxSettingsFrom(config: Readonly<Record<string, unknown>> | undefined): SandboxSettings {
  const parsed = SandboxConfigSchema.safeParse(config?.["sandbox"] ?? {});
  if (!parsed.success) {
    throw new Error(
      `The "sandbox" section of the configuration is invalid: ${asSentence(formatIssues(describeIssues(parsed.error.issues)))}`,
    );
  }
  const { limits: l, ...rest } = parsed.data;
  return {
    network: rest.network,
    ...(rest.bwrap ? { bwrap: rest.bwrap } : {}),
    ...(rest.python ? { python: rest.python } : {}),
    readOnlyPaths: rest.readOnlyPaths,
    limits: {
      cpuSeconds: l.cpuSeconds ?? DEFAULT_SANDBOX_LIMITS.cpuSeconds,
      memoryBytes: l.memoryMb !== undefined ? l.memoryMb * MB : DEFAULT_SANDBOX_LIMITS.memoryBytes,
      processes: l.processes ?? DEFAULT_SANDBOX_LIMITS.processes,
      fileSizeBytes: l.fileSizeMb !== undefined ? l.fileSizeMb * MB : DEFAULT_SANDBOX_LIMITS.fileSizeBytes,
      openFiles: l.openFiles ?? DEFAULT_SANDBOX_LIMITS.openFiles,
      tmpBytes: l.tmpMb !== undefined ? l.tmpMb * MB : DEFAULT_SANDBOX_LIMITS.tmpBytes,
    },
  };
}
