import { setImmediate as nextTurn } from "node:timers/promises";
import { ToolError } from "../core/errors.js";

/** How long synchronous file-system work may hold the event loop before letting others run. */
const SLICE_MS = 8;

/**
 * Lets long synchronous loops (a directory walk, a stat pass) share the event loop: call
 * `maybeYield()` often; every few milliseconds it awaits the next turn and throws CANCELLED once
 * the signal fires. Synchronous calls are used because for many small files they cost a
 * fraction of a thread-pool round trip each (measured in bench/search.bench.ts). `what` names
 * the work in the cancellation message ("The search was cancelled.").
 */
export function yielder(signal: AbortSignal, what = "search"): () => Promise<void> | undefined {
  let last = performance.now();
  const cancelled = () => new ToolError("CANCELLED", `The ${what} was cancelled.`);
  return () => {
    if (signal.aborted) throw cancelled();
    const now = performance.now();
    if (now - last < SLICE_MS) return undefined;
    return nextTurn().then(() => {
      last = performance.now();
      if (signal.aborted) throw cancelled();
    });
  };
}
