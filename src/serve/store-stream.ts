import type { Store, StoredEvent } from "../store/store.js";

/** How often the store is read again when no change was announced. */
const POLL_MS = 250;
/** Wake-ups within this long are read as one. */
const GATHER_MS = 5;
const BATCH = 500;

/**
 * Follows the store's events from the moment it starts (every process's: this server's own calls,
 * `tackle mcp` started by a client, other instances) and hands each on once, in order.
 */
export class StoreStream {
  readonly #store: Store;
  readonly #onEvent: (event: StoredEvent) => void;
  #cursor: string | undefined;
  #draining: Promise<void> | undefined;
  #again = false;
  #timer: NodeJS.Timeout | undefined;
  #gathering: NodeJS.Timeout | undefined;
  #unwatch: (() => void) | undefined;

  constructor(store: Store, onEvent: (event: StoredEvent) => void) {
    this.#store = store;
    this.#onEvent = onEvent;
  }

  async start(): Promise<void> {
    this.#cursor = await this.#store.lastEventId();
    this.#unwatch = this.#store.onChange((what) => {
      if (what === "events") this.#wake();
    });
    this.#timer = setInterval(() => this.#wake(), POLL_MS);
    this.#timer.unref();
  }

  #wake(): void {
    if (this.#gathering) return;
    this.#gathering = setTimeout(() => {
      this.#gathering = undefined;
      this.#drainNow();
    }, GATHER_MS);
  }

  #drainNow(): void {
    if (this.#draining) {
      this.#again = true;
      return;
    }
    this.#draining = this.#drain()
      .catch(() => undefined)
      .finally(() => {
        this.#draining = undefined;
        if (this.#again) {
          this.#again = false;
          this.#drainNow();
        }
      });
  }

  async #drain(): Promise<void> {
    for (;;) {
      const batch = await this.#store.eventsAfter(this.#cursor, BATCH);
      for (const e of batch) {
        this.#cursor = e.id;
        try {
          this.#onEvent(e);
        } catch {
          // one event that cannot be shown does not stop the rest
        }
      }
      if (batch.length < BATCH) return;
    }
  }

  /** Hands on what has arrived so far (tests, and closing without losing the last events). */
  async flush(): Promise<void> {
    await this.#draining;
    await this.#drain().catch(() => undefined);
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#gathering) clearTimeout(this.#gathering);
    this.#unwatch?.();
  }
}
