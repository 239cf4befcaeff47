import type { Progress, ToolContext } from "../core/tool.js";
import { formatCount } from "../core/format-count.js";

/** How often long work reports progress; TACKLE_PROGRESS_MS changes it (tests use a short one). */
function intervalMs(): number {
  const fromEnv = Number(process.env.TACKLE_PROGRESS_MS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : 1_000;
}

/**
 * Reports `describe()` through `ctx.onProgress` every second while work runs, starting after the
 * first second, so short calls send nothing and long ones (a search over a large tree, a download,
 * a command) show they are alive. Returns the function that stops it.
 */
export function reportProgress(ctx: Pick<ToolContext, "onProgress" | "signal">, describe: () => Progress): () => void {
  const every = intervalMs();
  const timer = setInterval(() => {
    if (!ctx.signal.aborted) ctx.onProgress(describe());
  }, every);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Progress of work whose end cannot be known in advance: seconds so far, with what it has done
 * (`sofar`, e.g. "12 matches so far") in the message.
 */
export function reportElapsed(ctx: Pick<ToolContext, "onProgress" | "signal">, doing: string, sofar?: () => string): () => void {
  const started = Date.now();
  return reportProgress(ctx, () => {
    const seconds = Math.round((Date.now() - started) / 1000);
    return { progress: seconds, message: `${doing} for ${seconds} s${sofar ? `; ${sofar()}` : ""}` };
  });
}

/** Progress of a running program (shell, run_code): seconds so far and how much it has printed. */
export function reportRunning(ctx: Pick<ToolContext, "onProgress" | "signal">): { printed(chars: number): void; stop(): void } {
  let printed = 0;
  const stop = reportElapsed(ctx, "running", () => `${formatCount(printed)} characters of output so far`);
  return { printed: (chars) => void (printed += chars), stop };
}
