/** How failing idempotent calls are retried: exponential backoff with jitter. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 3, baseDelayMs: 200, maxDelayMs: 10_000 };

/** Delay before retry number `attempt` (0-based): base·2^attempt, capped, with "equal jitter". */
export function backoffDelay(options: RetryOptions, attempt: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), options.maxDelayMs * 3);
  const exp = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  return exp / 2 + Math.random() * (exp / 2);
}

/** Sleeps, waking early (and rejecting) when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
