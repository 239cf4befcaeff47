import { z } from "zod";

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
  /** Run shell commands inside the bubblewrap sandbox that run_code uses. */
  sandbox: z.boolean().default(false),
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
