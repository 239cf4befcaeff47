import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
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
  const started = performance.now();
  const { file, args } = (options.argv ?? bashArgv)(options.command);
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    windowsHide: true,
  });
  const collector = new OutputCollector(options.outputName, options.limits ?? DEFAULT_OUTPUT_LIMITS, options.spillDir);
  const decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
  let lastOutputAt = performance.now();
  let recent = "";
  let ended: EndReason = "exit";
  let stopping = false;
  let strayProcessesKilled = false;
  const known = new Set<number>();
  const timers: NodeJS.Timeout[] = [];

  return new Promise<CommandResult>((resolve, reject) => {
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let exited = false;
    let settled = false;

    const receive = (stream: "stdout" | "stderr", chunk: Buffer | string) => {
      const text = typeof chunk === "string" ? chunk : decoders[stream].write(chunk);
      if (!text) return;
      lastOutputAt = performance.now();
      recent = (recent + text).slice(-200);
      collector.push(stream, text);
      options.onOutput?.(text, stream);
    };
    child.stdout!.on("data", (b: Buffer) => receive("stdout", b));
    child.stderr!.on("data", (b: Buffer) => receive("stderr", b));

    const finish = () => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      options.signal?.removeEventListener("abort", onAbort);
      for (const s of ["stdout", "stderr"] as const) {
        const rest = decoders[s].end();
        if (rest) receive(s, rest);
      }
      collector.close();
      // Whatever the command left running in its group (`sleep 100 >/dev/null &`) ends with it.
      if (pid !== undefined) {
        try {
          process.kill(-pid, "SIGKILL");
          if (ended === "exit") strayProcessesKilled = true;
        } catch {
          // nothing left: the usual case
        }
      }
      resolve({
        stdout: collector.stdout.text(),
        stderr: collector.stderr.text(),
        output: collector.text(),
        exitCode,
        signal: exitSignal,
        durationMs: performance.now() - started,
        ended,
        truncated: collector.truncated,
        ...(collector.file.path ? { fullOutputPath: collector.file.path } : {}),
        strayProcessesKilled,
        promptLike: looksLikePrompt(recent),
      });
    };

    const pid = child.pid;
    const stop = (reason: EndReason) => {
      if (stopping || settled || pid === undefined) return;
      stopping = true;
      ended = reason;
      void descendantsOf(pid).then((list) => {
        for (const p of list) known.add(p);
        signalTree(pid, known, "SIGTERM");
        timers.push(
          setTimeout(() => {
            void descendantsOf(pid).then((more) => {
              for (const p of more) known.add(p);
              signalTree(pid, known, "SIGKILL");
              // Pipes held by something that escaped the group must not hold the result back.
              timers.push(setTimeout(() => forceClose(), 500));
            });
          }, options.killGraceMs ?? 1500),
        );
      });
    };
    const forceClose = () => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      finish();
    };

    const onAbort = () => stop("aborted");
    if (options.signal?.aborted) stop("aborted");
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    timers.push(setTimeout(() => stop("timeout"), options.timeoutMs));

    const inactivity = options.inactivityMs ?? 0;
    const promptInactivity = options.promptInactivityMs ?? 0;
    if (inactivity > 0 || promptInactivity > 0) {
      const check = () => {
        if (stopping || settled) return;
        const silent = performance.now() - lastOutputAt;
        const limit = promptInactivity > 0 && looksLikePrompt(recent) ? promptInactivity : inactivity;
        if (limit > 0 && silent >= limit) return stop("inactive");
        const wait = Math.min(...[inactivity, promptInactivity].filter((n) => n > 0).map((n) => Math.max(n - silent, 50)));
        timers.push(setTimeout(check, wait));
      };
      timers.push(setTimeout(check, Math.min(...[inactivity, promptInactivity].filter((n) => n > 0))));
    }

    child.once("error", (err) => {
      if (exited || settled) return;
      const code = (err as NodeJS.ErrnoException).code;
      if (options.direct && (code === "ENOENT" || code === "EACCES")) {
        // What bash prints and returns for a program it cannot find or run.
        receive("stderr", `bash: ${file}: ${code === "ENOENT" ? "command not found" : "Permission denied"}\n`);
        exitCode = code === "ENOENT" ? 127 : 126;
        exited = true;
        finish();
        return;
      }
      settled = true;
      for (const t of timers) clearTimeout(t);
      options.signal?.removeEventListener("abort", onAbort);
      collector.close();
      reject(err);
    });
    child.once("exit", (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      // Something started in the background still holds the pipes: it dies with the command.
      timers.push(
        setTimeout(() => {
          if (settled || pid === undefined) return;
          strayProcessesKilled = true;
          signalTree(pid, known, "SIGKILL");
          timers.push(setTimeout(() => forceClose(), 200));
        }, LINGER_MS),
      );
    });
    child.once("close", () => finish());
  });
}
