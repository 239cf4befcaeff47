/**
 * Work for the next turn of the event loop, on one shared `setImmediate`, that is dropped if it is
 * no longer wanted by then. The runner watches a call's time limit and its caller's cancellation
 * only once the call has outlived the turn it began in: most calls (a small read, a lookup) end
 * within it, and a timer and an abort listener of their own cost more than such a call's work.
 */
export class NextTurn {
  readonly #waiting = new Set<() => void>();
  #scheduled: NodeJS.Immediate | undefined;

  /** Runs `work` on the next turn unless the returned function is called first. */
  schedule(work: () => void): () => void {
    this.#waiting.add(work);
    if (!this.#scheduled) {
      this.#scheduled = setImmediate(() => {
        this.#scheduled = undefined;
        const due = [...this.#waiting];
        this.#waiting.clear();
        for (const run of due) run();
      });
    }
    return () => this.#waiting.delete(work);
  }
}
