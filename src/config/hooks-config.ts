import { z } from "zod";

/** `hooks` in tackle.config.json, built when a configuration is first read (see ConfigSchema). */
export const HooksSchema = z.lazy(() => {
  /** One hook as configuration writes it. */
  const hook = z.object({
    /** argv (run without a shell), or one string run by `/bin/sh -c`. */
    command: z.union([z.array(z.string().min(1)).min(1), z.string().min(1)]),
    /** Which calls: rules as permissions write them (`write_file(src/**)`, `shell(git *)`); default every call. */
    match: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    /** How long it may run (default 30 s); past it, it is stopped and counted as failed. */
    timeoutMs: z.number().int().positive().max(600_000).optional(),
  });
  return z.object({ beforeCall: z.array(hook).optional(), afterCall: z.array(hook).optional() });
});

export type HooksConfig = z.infer<typeof HooksSchema>;
