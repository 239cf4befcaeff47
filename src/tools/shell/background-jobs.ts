import type { ChildProcess } from "node:child_process";
import { spawn } from "../../process/child-process.js";
import { StringDecoder } from "node:string_decoder";
import { killProcessGroupSync, killProcessTree } from "../../process/process-tree.js";
import { forgetTackleFolders } from "../../workspace/own-folders.js";

/** Every background process group alive in this process, killed synchronously when tackle exits. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killAllGroups(): void {
  for (const pid of liveGroups) killProcessGroupSync(pid, "SIGKILL");
  liveGroups.clear();
}

/**
 * Jobs run in their own process groups, so neither tackle's exit nor a Ctrl-C in its terminal
 * reaches them: tackle kills them itself on `exit`, and on SIGINT / SIGTERM / SIGHUP. A signal
 * nobody else handles is then raised again, so tackle still dies of it as it would have.
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", killAllGroups);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = () => {
      killAllGroups();
      process.removeListener(sig, onSignal);
      if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

/** Whether any process is left in the process group. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Recent output of a job: a ring of characters with a read cursor. */
export class OutputRing {
  #chunks: string[] = [];
  #length = 0;
  #total = 0;
  #readUpTo = 0;

  constructor(readonly max: number) {}

  get totalChars(): number {
    return this.#total;
  }

  push(text: string): void {
    if (!text) return;
    this.#chunks.push(text);
    this.#length += text.length;
    this.#total += text.length;
    while (this.#length > this.max) {
      const first = this.#chunks[0]!;
      const excess = this.#length - this.max;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#length -= first.length;
      } else {
        this.#chunks[0] = first.slice(excess);
        this.#length -= excess;
      }
    }
  }

  /** Output since the last read (at most `limit` characters, the latest), and how much was lost in between. */
  readNew(limit = Number.POSITIVE_INFINITY): { text: string; dropped: number } {
    const start = this.#total - this.#length;
    let from = Math.max(this.#readUpTo, start);
    const lost = from - this.#readUpTo;
    const skipped = Math.max(0, this.#total - from - limit);
    from += skipped;
    const text = this.#chunks.join("").slice(from - start);
    this.#readUpTo = this.#total;
    return { text, dropped: lost + skipped };
  }
}

export interface Job {
  id: string;
  command: string;
  cwd: string;
  pid: number;
  startedAt: Date;
  running: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stoppedByRequest: boolean;
  output: OutputRing;
  child: ChildProcess;
  /** Settles when the process has exited and its pipes have closed (or were let go). */
  done: Promise<void>;
}

export interface StartJobOptions {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** bubblewrap and its arguments: it gets `env` and passes it on, or clears it (--clearenv). */
  argv?: { file: string; args: string[] };
}

/** Background commands of one session: start, read new output, list, stop; all die with tackle. */
export class BackgroundJobs {
  readonly #jobs = new Map<string, Job>();
  #next = 1;

  constructor(
    readonly maxRunning: number,
    readonly bufferChars: number,
    readonly killGraceMs = 1_500,
  ) {}

  get running(): number {
    return [...this.#jobs.values()].filter((j) => j.running).length;
  }

  start(options: StartJobOptions): Job {
    if (this.running >= this.maxRunning) {
      throw new Error(`${this.maxRunning} background jobs are already running; stop one first (action "stop").`);
    }
    installExitHook();
    const { file, args } = options.argv ?? { file: "/bin/bash", args: ["-c", options.command] };
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const output = new OutputRing(this.bufferChars);
    const decoders = [new StringDecoder("utf8"), new StringDecoder("utf8")] as const;
    child.stdout!.on("data", (b: Buffer) => output.push(decoders[0].write(b)));
    child.stderr!.on("data", (b: Buffer) => output.push(decoders[1].write(b)));
    const id = `job_${this.#next++}`;
    let settle!: () => void;
    const done = new Promise<void>((r) => (settle = r));
    const job: Job = {
      id,
      command: options.command,
      cwd: options.cwd,
      pid: child.pid ?? -1,
      startedAt: new Date(),
      running: true,
      exitCode: null,
      signal: null,
      stoppedByRequest: false,
      output,
      child,
      done,
    };
    if (child.pid !== undefined) liveGroups.add(child.pid);
    child.once("error", (err) => {
      output.push(`\n[could not start: ${err.message}]\n`);
      job.running = false;
      settle();
    });
    child.once("exit", (code, signal) => {
      job.exitCode = code;
      job.signal = signal;
    });
    child.once("close", () => {
      output.push(decoders[0].end() + decoders[1].end());
      job.running = false;
      // `server &` inside a job: what it left in its group keeps running until stop or exit.
      if (child.pid !== undefined && !groupAlive(child.pid)) liveGroups.delete(child.pid);
      // It may have re-pointed a link above one of tackle's folders.
      forgetTackleFolders();
      settle();
    });
    this.#jobs.set(id, job);
    this.#prune();
    return job;
  }

  get(id: string): Job | undefined {
    return this.#jobs.get(id);
  }

  list(): Job[] {
    return [...this.#jobs.values()];
  }

  /** Stops a job and everything it started: SIGTERM, then SIGKILL after the grace period. */
  async stop(id: string): Promise<Job | undefined> {
    const job = this.#jobs.get(id);
    if (!job) return undefined;
    const lingering = liveGroups.has(job.pid) && groupAlive(job.pid);
    if (!job.running && !lingering) return job;
    job.stoppedByRequest = true;
    await killProcessTree(job.pid, "SIGTERM");
    const timer = setTimeout(() => void killProcessTree(job.pid, "SIGKILL"), this.killGraceMs);
    await job.done;
    // Whatever it started in the background goes too.
    for (let i = 0; i < 50 && groupAlive(job.pid); i++) await new Promise((r) => setTimeout(r, 20));
    if (groupAlive(job.pid)) killProcessGroupSync(job.pid, "SIGKILL");
    clearTimeout(timer);
    liveGroups.delete(job.pid);
    return job;
  }

  /** The job ended but processes it started in the background still run. */
  lingering(job: Job): boolean {
    return !job.running && liveGroups.has(job.pid) && groupAlive(job.pid);
  }

  /** Stops every job (session close). */
  async stopAll(): Promise<void> {
    await Promise.all(this.list().map((j) => this.stop(j.id)));
  }

  /** Forgets the oldest finished jobs beyond 50. */
  #prune(): void {
    const finished = this.list().filter((j) => !j.running);
    for (const j of finished.slice(0, Math.max(0, finished.length - 50))) this.#jobs.delete(j.id);
  }
}
