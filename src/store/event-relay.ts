import type { Store } from "./store.js";

/** How long the answer to "is any desk watching?" is trusted. */
const DESKS_CHECKED_MS = 2_000;
/** Events are gathered this long and sent as one batch: one write (or one round trip) for many. */
const BATCH_MS = 10;

/** The last answer to "is any desk watching?": asked at `at`, `known` once the store has said. */
interface DeskCheck {
  at: number;
  open: Promise<boolean>;
  known?: boolean;
}

/**
 * Sends a process's events to the store, in order, a batch every few milliseconds, while
 * some desk (a dashboard, the Emacs package) watches the store: with nobody watching, a busy
 * `tackle mcp` writes nothing it would not otherwise keep. Publishing never holds a call up; a
 * store that fails loses the batch, not the call.
 */
export class EventRelay {
  readonly #store: Store;
  #queue: Array<{ type: string; data: unknown }> = [];
  #scheduled = false;
  #inFlight: Promise<void> = Promise.resolve();
  #desks: DeskCheck | undefined;
  #closed = false;

  constructor(store: Store) {
    this.#store = store;
  }

  /** This process is itself a desk: its events are always watched. */
  watchedHere(): void {
    this.#desks = { at: Number.POSITIVE_INFINITY, open: Promise.resolve(true), known: true };
  }

  send(type: string, data: unknown): void {
    if (this.#closed) return;
    // Known to be unwatched: dropped now. Queued, each event would hold its call's whole result for
    // a batch's time (some twenty calls' results at a busy server's pace) only to be thrown away.
    if (this.#trusted(Date.now())?.known === false) return;
    this.#queue.push({ type, data });
    if (this.#scheduled) return;
    this.#scheduled = true;
    setTimeout(() => this.#flush(), BATCH_MS).unref();
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length) this.#inFlight = this.#inFlight.then(() => this.#publish(batch));
  }

  async #publish(batch: Array<{ type: string; data: unknown }>): Promise<void> {
    try {
      if (await this.#watched()) await this.#store.publish(batch);
    } catch {
      // the events were for watching; the audit trail keeps the record
    }
  }

  /** The last answer while it can still be trusted (a process that is a desk trusts its own for good). */
  #trusted(now: number): DeskCheck | undefined {
    const last = this.#desks;
    return last && now - last.at <= DESKS_CHECKED_MS ? last : undefined;
  }

  #watched(): Promise<boolean> {
    const now = Date.now();
    const trusted = this.#trusted(now);
    if (trusted) return trusted.open;
    const open = this.#store.instances().then(
      (all) => all.some((i) => i.desk),
      () => false,
    );
    const desks: DeskCheck = { at: now, open };
    void open.then((watched) => (desks.known = watched));
    this.#desks = desks;
    return open;
  }

  /** Sends what is queued, then stops. */
  async close(): Promise<void> {
    this.#flush();
    this.#closed = true;
    await this.#inFlight;
  }
}
