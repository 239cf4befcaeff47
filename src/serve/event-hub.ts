import type { ServerResponse } from "node:http";

/** Heartbeat comments keep proxies and idle timers from closing a quiet stream. */
export const HEARTBEAT_MS = 15_000;

/** One event as sent: its id lets a client that reconnects ask for what it missed (`Last-Event-ID`). */
export interface HubEvent {
  id?: string;
  type: string;
  data: unknown;
}

interface Client {
  /** Events that arrived while the client's missed ones were being replayed, sent after them. */
  held?: HubEvent[];
  /** The last id this client was sent. */
  last?: string;
}

/**
 * The open server-sent-event streams: every event goes to each as `id:`, `event: TYPE` and
 * `data: JSON`. A client that disconnects is removed.
 */
export class EventHub {
  readonly #clients = new Map<ServerResponse, Client>();
  readonly #heartbeat: NodeJS.Timeout;
  readonly #isAfter: (a: string, b: string) => boolean;

  constructor(options: { heartbeatMs?: number; isAfter?: (a: string, b: string) => boolean } = {}) {
    this.#isAfter = options.isAfter ?? ((a, b) => a > b);
    this.#heartbeat = setInterval(() => {
      for (const res of this.#clients.keys()) res.write(": heartbeat\n\n");
    }, options.heartbeatMs ?? HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  get size(): number {
    return this.#clients.size;
  }

  /**
   * Starts an event stream on `res`; it stays open until the client leaves or the hub closes.
   * With `missed`, the events after the client's last id are sent first, and anything arriving
   * meanwhile follows them once, in order.
   */
  async add(res: ServerResponse, missed?: () => Promise<HubEvent[]>): Promise<void> {
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      "X-Content-Type-Options": "nosniff",
    });
    res.write(": connected\n\n");
    const client: Client = missed ? { held: [] } : {};
    this.#clients.set(res, client);
    res.on("close", () => this.#clients.delete(res));
    if (!missed) return;
    let replay: HubEvent[] = [];
    try {
      replay = await missed();
    } catch {
      // what cannot be read again is not sent again; the stream goes on from now
    }
    const held = client.held ?? [];
    delete client.held;
    for (const e of [...replay, ...held]) this.#write(res, client, e);
  }

  /** Sends one event to every client. */
  send(type: string, data: unknown, id?: string): void {
    if (this.#clients.size === 0) return;
    const event: HubEvent = { type, data, ...(id !== undefined ? { id } : {}) };
    for (const [res, client] of this.#clients) {
      if (client.held) client.held.push(event);
      else this.#write(res, client, event);
    }
  }

  #write(res: ServerResponse, client: Client, e: HubEvent): void {
    if (e.id !== undefined) {
      if (client.last !== undefined && !this.#isAfter(e.id, client.last)) return;
      client.last = e.id;
    }
    // JSON.stringify never emits a raw newline, so one data line carries the whole event.
    const id = e.id !== undefined ? `id: ${e.id.replace(/[\r\n]/g, "")}\n` : "";
    res.write(`${id}event: ${e.type.replace(/[\r\n]/g, "")}\ndata: ${JSON.stringify(e.data)}\n\n`);
  }

  /** Ends every stream. */
  close(): void {
    clearInterval(this.#heartbeat);
    for (const res of this.#clients.keys()) res.end();
    this.#clients.clear();
  }
}
