import { spawn } from "../../process/child-process.js";
import { StringDecoder } from "node:string_decoder";
import { descendantsOf } from "../../process/process-tree.js";
import { DEFAULT_OUTPUT_LIMITS, OutputCollector, type OutputLimits } from "./output-collector.js";

/** How a command ended. */
export type EndReason = "exit" | "timeout" | "inactive" | "aborted";

export interface RunCommandOptions {
  /** The bash source to run. */
  command: string;
  /** Absolute working directory. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Total time limit. */
  timeoutMs: number;
  /** Kill after this long without output (0: never). */
  inactivityMs?: number;
  /** Kill after this long without output when the last output looks like a prompt (0: never). */
  promptInactivityMs?: number;
  /** Grace between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  signal?: AbortSignal;
  /** Each piece of output as it arrives, decoded. */
  onOutput?: (chunk: string, stream: "stdout" | "stderr") => void;
  limits?: OutputLimits;
  /** Name of the file that keeps a long output whole. */
  outputName: string;
  /** Folder for that file (one read tools may read). */
  spillDir?: string;
  /** The program and arguments that run `command` (bash by default; a sandbox may wrap it). */
  argv?: (command: string) => { file: string; args: string[] };
  /**
   * Set when `argv` execs the program directly rather than through bash: a missing program then
   * reads as bash would report it (exit 127) instead of failing to start.
   */
  direct?: boolean;
}

export interface CommandResult {
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as they arrived, cut to head + tail when long. */
  output: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
  ended: EndReason;
  truncated: boolean;
  /** The whole output, when it was too long to keep in memory. */
  fullOutputPath?: string;
  /** Processes it left running in the background were stopped when it ended. */
  strayProcessesKilled: boolean;
  /** The last output before an inactivity kill looked like a prompt. */
  promptLike: boolean;
}

/** A last line that reads like a question waiting for an answer. */
const PROMPT_TAIL =
  /(?:password|passphrase|username|\[y\/n\]|\(y\/n\)|\[yes\/no\]|yes\/no|continue\?|press (?:any key|enter|return)|overwrite\?|proceed\?).*$|[?:>\]] *$/i;

/**
 * Whether output ends in an unfinished line that looks like a prompt. A finished line
 * ("Building:\n") is progress, not a question: programs that ask leave the cursor on the line.
 */
export function looksLikePrompt(recent: string): boolean {
  const last = recent.slice(recent.lastIndexOf("\n") + 1);
  return last.trim().length > 0 && PROMPT_TAIL.test(last);
}

/** Time given to background processes to let go of the output pipes after the shell exits. */
const LINGER_MS = 200;

function bashArgv(command: string): { file: string; args: string[] } {
  return { file: "/bin/bash", args: ["-c", command] };
}

/** Sends `signal` to the process group, the process and every process known to descend from it. */
function signalTree(pid: number, known: Set<number>, signal: NodeJS.Signals): void {
  for (const target of [-pid, pid, ...known]) {
    try {
      process.kill(target, signal);
    } catch {
      // gone already
    }
  }
}

/**
 * Runs a command with bash in its own process group, stdin closed, output streamed and kept in
 * bounded memory. On timeout, inactivity or abort the whole tree gets SIGTERM, then SIGKILL.
 * Never rejects for how the command ended; only a failure to start rejects.
 */
export function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  return new Promise<CommandResult>((resolve, reject) => new CommandRun(options, resolve, reject));
}

/** One running command: its process tree, its output, its timers, and how it ends. */
class CommandRun {
  readonly #options: RunCommandOptions;
  readonly #resolve: (result: CommandResult) => void;
  readonly #reject: (err: Error) => void;
  readonly #started = performance.now();
  readonly #file: string;
  readonly #pid: number | undefined;
  readonly #child: ReturnType<typeof spawn>;
  readonly #collector: OutputCollector;
  readonly #decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
  /** Every process seen descending from the command, so one that leaves the group is still stopped. */
  readonly #known = new Set<number>();
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #onAbort = () => this.#stop("aborted");
  #lastOutputAt = performance.now();
  #recent = "";
  #ended: EndReason = "exit";
  #stopping = false;
  #strayProcessesKilled = false;
  #exitCode: number | null = null;
  #exitSignal: NodeJS.Signals | null = null;
  #exited = false;
  #settled = false;

  constructor(options: RunCommandOptions, resolve: (result: CommandResult) => void, reject: (err: Error) => void) {
    this.#options = options;
    this.#resolve = resolve;
    this.#reject = reject;
    const { file, args } = (options.argv ?? bashArgv)(options.command);
    this.#file = file;
    this.#child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
    });
    this.#pid = this.#child.pid;
    this.#collector = new OutputCollector(options.outputName, options.limits ?? DEFAULT_OUTPUT_LIMITS, options.spillDir);
    this.#child.stdout!.on("data", (b: Buffer) => this.#receive("stdout", b));
    this.#child.stderr!.on("data", (b: Buffer) => this.#receive("stderr", b));
    if (options.signal?.aborted) this.#stop("aborted");
    else options.signal?.addEventListener("abort", this.#onAbort, { once: true });
    this.#later(() => this.#stop("timeout"), options.timeoutMs);
    this.#watchSilence();
    this.#child.once("error", (err) => this.#failed(err));
    this.#child.once("exit", (code, signal) => this.#exit(code, signal));
    this.#child.once("close", () => this.#finish());
  }

  #later(fn: () => void, ms: number): void {
    this.#timers.push(setTimeout(fn, ms));
  }

  #receive(stream: "stdout" | "stderr", chunk: Buffer | string): void {
    const text = typeof chunk === "string" ? chunk : this.#decoders[stream].write(chunk);
    if (!text) return;
    this.#lastOutputAt = performance.now();
    this.#recent = (this.#recent + text).slice(-200);
    this.#collector.push(stream, text);
    this.#options.onOutput?.(text, stream);
  }

  /** Stops a command that has printed nothing for too long (sooner when it seems to wait for an answer). */
  #watchSilence(): void {
    const inactivity = this.#options.inactivityMs ?? 0;
    const promptInactivity = this.#options.promptInactivityMs ?? 0;
    const limits = [inactivity, promptInactivity].filter((n) => n > 0);
    if (!limits.length) return;
    const check = () => {
      if (this.#stopping || this.#settled) return;
      const silent = performance.now() - this.#lastOutputAt;
      const limit = promptInactivity > 0 && looksLikePrompt(this.#recent) ? promptInactivity : inactivity;
      if (limit > 0 && silent >= limit) return this.#stop("inactive");
      this.#later(check, Math.min(...limits.map((n) => Math.max(n - silent, 50))));
    };
    this.#later(check, Math.min(...limits));
  }

  /** SIGTERM to the whole tree, SIGKILL after the grace period. */
  #stop(reason: EndReason): void {
    const pid = this.#pid;
    if (this.#stopping || this.#settled || pid === undefined) return;
    this.#stopping = true;
    this.#ended = reason;
    void descendantsOf(pid).then((list) => {
      for (const p of list) this.#known.add(p);
      signalTree(pid, this.#known, "SIGTERM");
      this.#later(() => {
        void descendantsOf(pid).then((more) => {
          for (const p of more) this.#known.add(p);
          signalTree(pid, this.#known, "SIGKILL");
          // Pipes held by something that escaped the group must not hold the result back.
          this.#later(() => this.#forceClose(), 500);
        });
      }, this.#options.killGraceMs ?? 1500);
    });
  }

  #forceClose(): void {
    this.#child.stdout?.destroy();
    this.#child.stderr?.destroy();
    this.#finish();
  }

  #exit(code: number | null, signal: NodeJS.Signals | null): void {
    this.#exited = true;
    this.#exitCode = code;
    this.#exitSignal = signal;
    // Something started in the background still holds the pipes: it dies with the command.
    this.#later(() => {
      if (this.#settled || this.#pid === undefined) return;
      this.#strayProcessesKilled = true;
      signalTree(this.#pid, this.#known, "SIGKILL");
      this.#later(() => this.#forceClose(), 200);
    }, LINGER_MS);
  }

  #failed(err: Error): void {
    if (this.#exited || this.#settled) return;
    const code = (err as NodeJS.ErrnoException).code;
    if (this.#options.direct && (code === "ENOENT" || code === "EACCES")) {
      // What bash prints and returns for a program it cannot find or run.
      this.#receive("stderr", `bash: ${this.#file}: ${code === "ENOENT" ? "command not found" : "Permission denied"}\n`);
      this.#exitCode = code === "ENOENT" ? 127 : 126;
      this.#exited = true;
      this.#finish();
      return;
    }
    this.#settle();
    this.#collector.close();
    this.#reject(err);
  }

  #settle(): void {
    this.#settled = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#options.signal?.removeEventListener("abort", this.#onAbort);
  }

  #finish(): void {
    if (this.#settled) return;
    this.#settle();
    for (const s of ["stdout", "stderr"] as const) {
      const rest = this.#decoders[s].end();
      if (rest) this.#receive(s, rest);
    }
    const collector = this.#collector;
    collector.close();
    // Whatever the command left running in its group (`sleep 100 >/dev/null &`) ends with it.
    if (this.#pid !== undefined) {
      try {
        process.kill(-this.#pid, "SIGKILL");
        if (this.#ended === "exit") this.#strayProcessesKilled = true;
      } catch {
        // nothing left: the usual case
      }
    }
    this.#resolve({
      stdout: collector.stdout.text(),
      stderr: collector.stderr.text(),
      output: collector.text(),
      exitCode: this.#exitCode,
      signal: this.#exitSignal,
      durationMs: performance.now() - this.#started,
      ended: this.#ended,
      truncated: collector.truncated,
      ...(collector.file.path ? { fullOutputPath: collector.file.path } : {}),
      strayProcessesKilled: this.#strayProcessesKilled,
      promptLike: looksLikePrompt(this.#recent),
    });
  }
}
