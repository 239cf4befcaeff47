import type { ServerResponse } from "node:http";

/** Heartbeat comments keep proxies and idle timers from closing a quiet stream. */
export const HEARTBEAT_MS = 15_000;

/**
 * The open server-sent-event streams: every event goes to each as `event: TYPE` and `data: JSON`.
 * A client that disconnects is removed.
 */
export class EventHub {
  readonly #clients = new Set<ServerResponse>();
  readonly #heartbeat: NodeJS.Timeout;

  constructor(heartbeatMs = HEARTBEAT_MS) {
    this.#heartbeat = setInterval(() => {
      for (const res of this.#clients) res.write(": heartbeat\n\n");
    }, heartbeatMs);
    this.#heartbeat.unref();
  }

  get size(): number {
    return this.#clients.size;
  }

  /** Starts an event stream on `res`; it stays open until the client leaves or the hub closes. */
  add(res: ServerResponse): void {
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      "X-Content-Type-Options": "nosniff",
    });
    res.write(": connected\n\n");
    this.#clients.add(res);
    res.on("close", () => this.#clients.delete(res));
  }

  /** Sends one event to every client. */
  send(type: string, data: unknown): void {
    if (this.#clients.size === 0) return;
    // JSON.stringify never emits a raw newline, so one data line carries the whole event.
    const frame = `event: ${type.replace(/[\r\n]/g, "")}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of this.#clients) res.write(frame);
  }

  /** Ends every stream. */
  close(): void {
    clearInterval(this.#heartbeat);
    for (const res of this.#clients) res.end();
    this.#clients.clear();
  }
}
