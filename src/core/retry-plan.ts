import type { Effect } from "./effect.js";

/** When the runner tries a failed call again, with backoff: what a tool's definition says is safe to repeat. */
export interface RetryPlan {
  /** After a failure that may pass (network, rate limit, a server busy): the tool is idempotent. */
  failures: boolean;
  /** After the call ran out of time, with a fresh time limit: a slow remote side may answer the next time. */
  timeouts: boolean;
}

/**
 * A tool's retry plan: failures are retried for idempotent tools (reads unless they say otherwise,
 * writes that say so: the same content written twice is written once), timeouts for idempotent
 * tools that reach the network unless they say otherwise. Nothing that runs commands is repeated.
 */
export function retryPlanOf(tool: { effect: Effect; idempotent?: boolean | undefined; retryTimeouts?: boolean | undefined }): RetryPlan {
  const failures = tool.idempotent ?? tool.effect === "read";
  return { failures, timeouts: failures && (tool.retryTimeouts ?? tool.effect === "network") };
}
