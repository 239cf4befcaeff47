/**
 * The last `limit` bytes of a stream. A server's stderr is read continuously (an unread pipe
 * fills and blocks the server) but only its tail is worth keeping, for error messages.
 */
export class BoundedTail {
  readonly #limit: number;
  #chunks: Buffer[] = [];
  #size = 0;
  #total = 0;

  constructor(limit = 8 * 1024) {
    this.#limit = limit;
  }

  push(chunk: Buffer | string): void {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    this.#total += buf.length;
    this.#chunks.push(buf);
    this.#size += buf.length;
    // Compact only when twice over the limit, so a flood costs amortised O(1) per byte.
    if (this.#size > this.#limit * 2) this.#compact();
  }

  /** Bytes seen in all. */
  get total(): number {
    return this.#total;
  }

  /** The kept tail as text, trimmed. */
  text(): string {
    this.#compact();
    const buf = Buffer.concat(this.#chunks);
    return buf
      .toString("utf8")
      .replace(/^\uFFFD+/, "")
      .trim();
  }

  clear(): void {
    this.#chunks = [];
    this.#size = 0;
  }

  #compact(): void {
    if (this.#size <= this.#limit) return;
    const all = Buffer.concat(this.#chunks);
    const kept = Buffer.from(all.subarray(all.length - this.#limit));
    this.#chunks = [kept];
    this.#size = kept.length;
  }
}
