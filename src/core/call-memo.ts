/**
 * What one tool call has worked out so far, shared by every hook of that call (scope, access,
 * assess, needsApproval, preview, execute): a path resolved or a command parsed by the first hook
 * is reused by the others instead of being worked out again.
 */
export class CallMemo {
  readonly #values = new Map<unknown, unknown>();

  /** The value stored under `key`, computing it with `compute` the first time it is asked for. */
  once<T>(key: unknown, compute: () => T): T {
    if (this.#values.has(key)) return this.#values.get(key) as T;
    const value = compute();
    this.#values.set(key, value);
    return value;
  }
}

/**
 * Wraps `compute` so it runs once per call, whichever hook asks first; the others get the same
 * answer (the same promise, for async work).
 */
export function perCall<A, C extends { memo: CallMemo }, T>(compute: (args: A, ctx: C) => T): (args: A, ctx: C) => T {
  const key = Symbol("perCall");
  return (args, ctx) => ctx.memo.once(key, () => compute(args, ctx));
}
