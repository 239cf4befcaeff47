import type { ChildProcessByStdio } from "node:child_process";
import { spawn } from "../../process/child-process.js";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Readable, Writable } from "node:stream";
import { ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { descendantsOf, killProcessTree } from "../../process/process-tree.js";
import { BoundedTail } from "./bounded-tail.js";
import { withProcessLimits, type ProcessLimits } from "../../process/rlimits.js";
import { findExecutable } from "../../process/find-executable.js";
import { trackProcess } from "./process-cleanup.js";

export interface StdioProcessOptions {
  command: string;
  args?: string[];
  /** Merged over a safe base environment (HOME, PATH, USER... as the SDK chooses, and TMPDIR). */
  env?: Record<string, string>;
  cwd?: string;
  /** Bytes of stderr kept for error messages. Default 8 KiB. */
  stderrTailBytes?: number;
  /** Largest single JSON-RPC message accepted from the server. Default 64 MiB. */
  maxMessageBytes?: number;
  /** Time the server gets to exit after its stdin closes, then after SIGTERM. Default 1 s each. */
  graceMs?: number;
  /** CPU, memory and open-file limits for the process (none by default). */
  limits?: ProcessLimits;
}

/** How the process ended, once it has. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The MCP stdio transport, spawning the server in its own process group. The SDK's
 * StdioClientTransport kills only the process it started, so a server behind `npx`, `uvx` or
 * `sh -c` would survive it; here shutting down kills the group, every descendant, and any
 * descendant seen earlier that has since left the group.
 *
 * stderr is always piped and drained into a bounded tail: it never reaches the terminal, and a
 * server that floods it never blocks.
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #options: StdioProcessOptions;
  readonly #tail: BoundedTail;
  readonly #readBuffer: ReadBuffer;
  #child?: ChildProcessByStdio<Writable, Readable, Readable>;
  #pid?: number;
  #exit?: ExitInfo;
  /** The server has sent a message: it is running its MCP loop, and may have state to save at exit. */
  #answered = false;
  #exited?: Promise<void>;
  #closed = false;
  #killing?: Promise<void>;
  #untrack?: () => void;
  /** Descendants seen while running, with their start times so a reused pid is never killed. */
  readonly #seen = new Map<number, string>();

  constructor(options: StdioProcessOptions) {
    this.#options = options;
    this.#tail = new BoundedTail(options.stderrTailBytes ?? 8 * 1024);
    this.#readBuffer = new ReadBuffer({ maxBufferSize: options.maxMessageBytes ?? 64 * 1024 * 1024 });
  }

  /** The process id of the command started, once started. */
  get pid(): number | undefined {
    return this.#pid;
  }

  /** The last few KB the server wrote to stderr. */
  get stderrTail(): string {
    return this.#tail.text();
  }

  /** Bytes the server wrote to stderr in all. */
  get stderrBytes(): number {
    return this.#tail.total;
  }

  get exitInfo(): ExitInfo | undefined {
    return this.#exit;
  }

  async start(): Promise<void> {
    if (this.#child) throw new Error("StdioProcessTransport already started.");
    const { command, args = [], env = {}, cwd } = this.#options;
    // The SDK's base passes Windows' TEMP but not TMPDIR: without it a server falls back to the
    // shared /tmp instead of the user's own temporary folder.
    const tmpdir = process.env["TMPDIR"];
    const childEnv: Record<string, string> = { ...getDefaultEnvironment(), ...(tmpdir ? { TMPDIR: tmpdir } : {}), ...env };
    // Under limits the process is started by prlimit: a missing program must still read as one.
    const limits = this.#options.limits ?? {};
    if (Object.keys(limits).length > 0 && !findExecutable(command, { ...(cwd ? { cwd } : {}), dirs: (childEnv.PATH ?? "").split(":") })) {
      throw new Error(`Cannot start ${command}: command not found (${command})`);
    }
    const [file, ...argv] = withProcessLimits([command, ...args], limits);
    const child = spawn(file!, argv, {
      cwd,
      env: childEnv,
      stdio: ["pipe", "pipe", "pipe"],
      // Its own process group, so the whole tree can be signalled at once.
      detached: true,
      shell: false,
      windowsHide: true,
    });
    this.#child = child;
    // Later errors (a failed kill, a broken pipe) are reported, never thrown as an unhandled event.
    child.on("error", (err) => {
      if (this.#pid !== undefined) this.onerror?.(err);
    });
    this.#exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.once("exit", (code, signal) => {
      this.#exit = { code, signal };
    });
    child.stderr.on("data", (chunk: Buffer) => this.#tail.push(chunk));
    child.stderr.on("error", () => {});
    child.stdin.on("error", (err) => this.onerror?.(err));
    child.stdout.on("data", (chunk: Buffer) => {
      try {
        this.#readBuffer.append(chunk);
      } catch (err) {
        this.onerror?.(err as Error);
        void this.close();
        return;
      }
      this.#drain();
    });
    child.stdout.on("error", (err) => this.onerror?.(err));
    // The server can no longer answer once its stdout closes, whatever became of the process.
    child.stdout.once("close", () => this.#finish());
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (err: NodeJS.ErrnoException) => {
        const reason =
          err.code === "ENOENT" ? `command not found (${command})` : err.code === "EACCES" ? `permission denied (${command})` : err.message;
        reject(new Error(`Cannot start ${command}: ${reason}`, { cause: err }));
      });
    });
    this.#pid = child.pid;
    this.#untrack = trackProcess({ killSync: () => this.#killSync() });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#closed || !stdin.writable) throw new Error("The MCP server process is not running.");
    const json = serializeMessage(message);
    if (!stdin.write(json)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          stdin.off("drain", done);
          stdin.off("close", done);
          resolve();
        };
        stdin.once("drain", done);
        stdin.once("close", done);
      });
    }
  }

  /** Records every current descendant, so one that later escapes the group is still killed. */
  async snapshotDescendants(): Promise<void> {
    if (this.#pid === undefined || this.#exit) return;
    for (const pid of await descendantsOf(this.#pid)) {
      const start = await startTime(pid);
      if (start) this.#seen.set(pid, start);
    }
  }

  /**
   * Ends the server: closes its stdin (the MCP way to ask it to exit), then SIGTERM (at once for
   * a server that never answered), then SIGKILL to the whole tree. Always ends with the tree
   * killed, even if the process exited on its own and left children.
   */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#pid === undefined) {
      this.#finish();
      return;
    }
    const grace = this.#options.graceMs ?? 1_000;
    await this.snapshotDescendants().catch(() => {});
    try {
      child.stdin.end();
    } catch {
      // already closed
    }
    // One that never said a word has nothing to finish: it is not kept waiting on.
    if (!this.#exit && this.#answered) await waitFor(this.#exited!, grace);
    if (!this.#exit) {
      await killProcessTree(this.#pid, "SIGTERM");
      await waitFor(this.#exited!, grace);
    }
    await this.kill();
  }

  /** Kills the whole tree at once (SIGKILL). */
  kill(): Promise<void> {
    if (this.#pid === undefined) return Promise.resolve();
    const pid = this.#pid;
    this.#killing ??= (async () => {
      await killProcessTree(pid, "SIGKILL");
      await this.#killSeen();
      this.#untrack?.();
      this.#untrack = undefined;
      this.#finish();
    })();
    return this.#killing;
  }

  #drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#readBuffer.readMessage();
      } catch (err) {
        // A line that is not JSON-RPC (a server printing logs to stdout): report it and go on.
        this.onerror?.(new Error(`The server wrote something that is not JSON-RPC to stdout: ${(err as Error).message}`));
        continue;
      }
      if (message === null) return;
      this.#answered = true;
      this.onmessage?.(message);
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#readBuffer.clear();
    // stdout often closes a moment before the exit is reported: wait briefly for it, so the
    // reason given (exit code, signal) is the real one.
    const exited = this.#exit || !this.#exited ? Promise.resolve() : waitFor(this.#exited, 250);
    void exited.then(() => {
      // What is left of the group (a wrapper's children) goes too.
      if (this.#pid !== undefined) void this.kill().catch(() => {});
      this.onclose?.();
    });
  }

  async #killSeen(): Promise<void> {
    for (const [pid, start] of this.#seen) {
      if ((await startTime(pid)) === start) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone
        }
      }
      this.#seen.delete(pid);
    }
  }

  #killSync(): void {
    if (this.#pid === undefined) return;
    for (const target of [-this.#pid, this.#pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // gone
      }
    }
    for (const [pid, start] of this.#seen) {
      if (startTimeSync(pid) !== start) continue;
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
}

function waitFor(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    void promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function parseStart(stat: string): string | undefined {
  // Field 22 (starttime); fields resume after the last ")" because the name may contain spaces.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

async function startTime(pid: number): Promise<string | undefined> {
  try {
    return parseStart(await readFile(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

function startTimeSync(pid: number): string | undefined {
  try {
    return parseStart(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}
