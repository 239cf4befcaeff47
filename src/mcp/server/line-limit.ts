import { Transform, type TransformCallback } from "node:stream";

/** The largest message `tackle mcp` takes on stdio; the SDK's own reader closes the connection at 10 MiB. */
export const MAX_STDIO_MESSAGE_BYTES = 8 * 1024 * 1024;
/** How much of a message's start is kept to find its id when the rest is dropped. */
const HEAD_BYTES = 4096;
const NEWLINE = 0x0a;

/**
 * Passes stdio's newline-delimited messages through unchanged, except one longer than `limit`:
 * its bytes past the limit are dropped and the line is ended early (the partial JSON that reached
 * the reader is then skipped as unparseable), and `onOversize` is told its size and its first
 * bytes, so the request can be answered with an error. The SDK's reader would otherwise close the
 * whole connection, and `tackle mcp` with it, on one large message.
 */
export class LineLimit extends Transform {
  #lineBytes = 0;
  #dropping = false;
  /** Where the current line began, within the chunk it began in (its id is read from there). */
  #head: Buffer | undefined;

  constructor(
    private readonly limit: number,
    private readonly onOversize: (size: number, head: Buffer) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    // Every message of ordinary traffic: no line in this chunk can reach the limit, so it passes
    // whole, with one search for its last line break.
    if (!this.#dropping && this.#lineBytes + chunk.length <= this.limit) {
      const last = chunk.lastIndexOf(NEWLINE);
      if (last === -1) {
        if (this.#lineBytes === 0) this.#head = chunk;
        this.#lineBytes += chunk.length;
      } else {
        this.#lineBytes = chunk.length - last - 1;
        this.#head = this.#lineBytes ? chunk.subarray(last + 1) : undefined;
      }
      this.push(chunk);
      done();
      return;
    }
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.#take(chunk, start, end, newline !== -1);
      start = end;
    }
    done();
  }

  /** One piece of one line: [start, end) of the chunk, ending the line when `ends`. */
  #take(chunk: Buffer, start: number, end: number, ends: boolean): void {
    if (this.#lineBytes === 0) this.#head = chunk.subarray(start, end);
    this.#lineBytes += ends ? end - start - 1 : end - start;
    if (!this.#dropping && this.#lineBytes > this.limit) this.#dropping = true;
    if (!this.#dropping) this.push(chunk.subarray(start, end));
    if (!ends) return;
    if (this.#dropping) {
      this.push(Buffer.from("\n"));
      this.onOversize(this.#lineBytes, (this.#head ?? Buffer.alloc(0)).subarray(0, HEAD_BYTES));
    }
    this.#lineBytes = 0;
    this.#dropping = false;
    this.#head = undefined;
  }
}

/** The request id at the start of a JSON-RPC message, where clients put it; null when it is not there. */
export function idFromHead(head: Buffer): string | number | null {
  const match = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(head.toString("utf8"));
  if (!match) return null;
  const raw = match[1]!;
  return raw.startsWith('"') ? (JSON.parse(raw) as string) : Number(raw);
}
