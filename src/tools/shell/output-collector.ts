import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { formatCount } from "../../core/format-count.js";
import { ensureOwnFolder } from "../../runtime/output-cap.js";

/** Keeps the first and the last characters of a stream of text, counting what falls between. */
export class HeadTail {
  #head = "";
  #tail: string[] = [];
  #tailLen = 0;
  #total = 0;

  constructor(
    readonly headMax: number,
    readonly tailMax: number,
  ) {}

  get totalChars(): number {
    return this.#total;
  }

  get droppedChars(): number {
    return this.#total - this.#head.length - this.#tailLen;
  }

  push(text: string): void {
    this.#total += text.length;
    if (this.#head.length < this.headMax) {
      const take = Math.min(text.length, this.headMax - this.#head.length);
      this.#head += text.slice(0, take);
      text = text.slice(take);
      if (!text) return;
    }
    this.#tail.push(text);
    this.#tailLen += text.length;
    while (this.#tailLen > this.tailMax) {
      const first = this.#tail[0]!;
      const excess = this.#tailLen - this.tailMax;
      if (first.length <= excess) {
        this.#tail.shift();
        this.#tailLen -= first.length;
      } else {
        // slice copies, so a huge chunk is not kept alive by its tail
        this.#tail[0] = first.slice(excess);
        this.#tailLen -= excess;
      }
    }
  }

  /** The kept text; `notice` is told how many characters were cut and returns what marks the cut. */
  text(notice: (dropped: number) => string = defaultNotice): string {
    const tail = this.#tail.join("");
    const dropped = this.droppedChars;
    return dropped === 0 ? this.#head + tail : this.#head + notice(dropped) + tail;
  }
}

function defaultNotice(dropped: number): string {
  return `\n[... ${formatCount(dropped)} characters cut ...]\n`;
}

let ownSpillDir: string | undefined;

/** tackle's own folder for full outputs, removed when the process exits. */
function shellSpillDir(): string {
  if (!ownSpillDir || !existsSync(ownSpillDir)) {
    ownSpillDir = mkdtempSync(path.join(os.tmpdir(), "tackle-shell-"));
    const dir = ownSpillDir;
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  return ownSpillDir;
}

/**
 * Writes a command's whole output to a file once it grows past what is kept in memory, so
 * nothing is lost and the model can page through it with a read tool. Writes are synchronous:
 * the process's pipe then fills and the process waits, which is what bounds memory.
 */
export class OutputFile {
  #fd: number | undefined;
  #path: string | undefined;
  #failed = false;

  constructor(
    readonly name: string,
    /** A folder read tools may read (the runner's), else tackle's own temporary folder. */
    readonly dir?: string,
  ) {}

  get path(): string | undefined {
    return this.#path;
  }

  /** Starts the file with what was received so far. */
  open(initial: string): void {
    if (this.#fd !== undefined || this.#failed) return;
    try {
      // The runner's folder is made when first needed (see runtime/output-cap.ts).
      if (this.dir) ensureOwnFolder(this.dir);
      this.#path = path.join(this.dir ?? shellSpillDir(), `${this.name.replace(/[^A-Za-z0-9_.-]/g, "_")}.log`);
      this.#fd = openSync(this.#path, "w", 0o600);
      writeSync(this.#fd, initial);
    } catch {
      this.#failed = true;
      this.#path = undefined;
    }
  }

  write(text: string): void {
    if (this.#fd === undefined) return;
    try {
      writeSync(this.#fd, text);
    } catch {
      this.close();
    }
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/** Limits for what a command's output may occupy in memory, in characters. */
export interface OutputLimits {
  headChars: number;
  tailChars: number;
}

export const DEFAULT_OUTPUT_LIMITS: OutputLimits = { headChars: 20_000, tailChars: 30_000 };

/**
 * A command's output as it arrives: stdout and stderr apart (for structured results) and
 * interleaved (what the model reads), each as head + tail, with the whole interleaved text in a
 * file once it no longer fits. Memory stays bounded whatever the process prints.
 */
export class OutputCollector {
  readonly stdout: HeadTail;
  readonly stderr: HeadTail;
  readonly combined: HeadTail;
  readonly file: OutputFile;
  readonly #limit: number;
  /** What arrived before the file was needed; undefined once the file took over (or failed). */
  #early: string[] | undefined = [];

  constructor(name: string, limits: OutputLimits = DEFAULT_OUTPUT_LIMITS, spillDir?: string) {
    this.stdout = new HeadTail(limits.headChars, limits.tailChars);
    this.stderr = new HeadTail(limits.headChars, limits.tailChars);
    this.combined = new HeadTail(limits.headChars, limits.tailChars);
    this.#limit = limits.headChars + limits.tailChars;
    this.file = new OutputFile(name, spillDir);
  }

  push(stream: "stdout" | "stderr", text: string): void {
    if (!text) return;
    (stream === "stdout" ? this.stdout : this.stderr).push(text);
    this.combined.push(text);
    if (this.file.path) {
      this.file.write(text);
    } else if (this.#early) {
      this.#early.push(text);
      if (this.combined.totalChars > this.#limit) {
        // Everything so far is still whole in #early; from here on the file holds it.
        this.file.open(this.#early.join(""));
        this.#early = undefined;
      }
    }
  }

  get truncated(): boolean {
    return this.combined.droppedChars > 0;
  }

  /** The interleaved text for the model, with a notice saying what was cut and where it all is. */
  text(): string {
    const where = this.file.path ? ` The full output is in ${this.file.path} (read it with read_file, or search it with grep).` : "";
    return this.combined.text((dropped) => `\n[... ${formatCount(dropped)} characters of output cut.${where} ...]\n`);
  }

  close(): void {
    this.file.close();
    this.#early = undefined;
  }
}
