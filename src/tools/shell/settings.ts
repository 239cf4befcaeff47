import { z } from "zod";

const SANDBOX_MODES = ["workspace", "strict", "off"] as const;

/** How shell commands are confined (`shell.sandbox`). */
export interface ShellSandbox {
  mode: (typeof SANDBOX_MODES)[number];
  /** Folders besides the workspace the commands may write, as written in the configuration. */
  writableRoots: string[];
  /** Network for every command, not only those a person or a rule approved. */
  network: boolean;
}

/** The `shell` section of tackle.config.json. */
export const ShellSettingsSchema = z.object({
  /** Stop a command that prints nothing for this long (ms; 0 turns it off). */
  inactivityTimeoutMs: z.number().int().min(0).default(90_000),
  /** Stop a command sooner when its last output looks like a prompt waiting for an answer (ms; 0 off). */
  promptTimeoutMs: z.number().int().min(0).default(10_000),
  /** Between SIGTERM and SIGKILL when a command is stopped (ms). */
  killGraceMs: z.number().int().min(0).max(60_000).default(1_500),
  /** Characters of output kept in memory: the first `headChars` and the last `tailChars`. */
  headChars: z.number().int().positive().default(20_000),
  tailChars: z.number().int().positive().default(30_000),
  /** Background jobs running at once. */
  maxBackgroundJobs: z.number().int().positive().default(16),
  /** Characters of recent output each background job keeps. */
  backgroundBufferChars: z.number().int().positive().default(200_000),
  /** Extra environment variables for every command. */
  env: z.record(z.string(), z.string()).default({}),
  /**
   * Where commands run: `workspace` (the default) in a bubblewrap sandbox over the host's file
   * system read-only, with the workspace writable, secrets hidden and no network unless a person
   * or a rule approved the call; `strict` in run_code's sandbox (`true` is its older spelling);
   * `off` (or `false`) on the host. The object form adds folders the commands may write
   * (`writableRoots`: absolute, `~/`, or relative to the workspace) and `network: true`.
   */
  sandbox: z
    .union([
      z.boolean(),
      z.enum(SANDBOX_MODES),
      z
        .object({
          mode: z.enum(SANDBOX_MODES).default("workspace"),
          writableRoots: z.array(z.string().min(1)).default([]),
          network: z.boolean().default(false),
        })
        .strict(),
    ])
    .default("workspace")
    .transform((v): ShellSandbox =>
      typeof v === "object" ? v : { mode: v === true ? "strict" : v === false ? "off" : v, writableRoots: [], network: false },
    ),
  /** Run commands judged read-only where they cannot write or reach the network (bubblewrap, where it works). */
  confineReadOnly: z.boolean().default(true),
});

export type ShellSettings = z.infer<typeof ShellSettingsSchema>;

/** Reads `config.shell`, with errors that say which field is wrong. */
export function shellSettingsFrom(config: Readonly<Record<string, unknown>> | undefined): ShellSettings {
  const parsed = ShellSettingsSchema.safeParse(config?.["shell"] ?? {});
  if (!parsed.success)
    throw new Error(
      `tackle.config.json "shell" is invalid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  return parsed.data;
}
