import { formatCount } from "../core/format-count.js";

/**
 * Collects a process's output in bounded memory: the first `headBytes` and the last `tailBytes`
 * are kept, the middle is counted and dropped. A process printing 100 MB costs at most
 * head + tail bytes (plus one chunk) however long it runs.
 */
export class BoundedOutput {
  readonly #headMax: number;
  readonly #tailMax: number;
  #head: Buffer[] = [];
  #headLen = 0;
  #tail: Buffer[] = [];
  #tailLen = 0;
  #total = 0;

  constructor(maxBytes: number) {
    this.#headMax = Math.floor(maxBytes * 0.4);
    this.#tailMax = maxBytes - this.#headMax;
  }

  /** Bytes received in all. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Bytes received but not kept. */
  get droppedBytes(): number {
    return this.#total - this.#headLen - this.#tailLen;
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    if (this.#headLen < this.#headMax) {
      const take = Math.min(chunk.length, this.#headMax - this.#headLen);
      this.#head.push(chunk.subarray(0, take));
      this.#headLen += take;
      chunk = chunk.subarray(take);
      if (chunk.length === 0) return;
    }
    this.#tail.push(chunk);
    this.#tailLen += chunk.length;
    // Trim whole chunks first, then the front of the oldest, so the tail never exceeds its budget.
    while (this.#tailLen > this.#tailMax) {
      const first = this.#tail[0]!;
      const excess = this.#tailLen - this.#tailMax;
      if (first.length <= excess) {
        this.#tail.shift();
        this.#tailLen -= first.length;
      } else {
        // Copy so the big original chunk can be garbage collected.
        this.#tail[0] = Buffer.from(first.subarray(excess));
        this.#tailLen -= excess;
      }
    }
  }

  /** The kept text, with a notice where bytes were dropped. Invalid UTF-8 becomes U+FFFD. */
  text(): string {
    const head = Buffer.concat(this.#head).toString("utf8");
    const tail = Buffer.concat(this.#tail).toString("utf8");
    const dropped = this.droppedBytes;
    if (dropped === 0) return head + tail;
    return `${head}\n[... ${formatCount(dropped)} bytes of output cut ...]\n${tail}`;
  }
}
