import { spawn } from "node:child_process";

/** How a command ended, and what it printed. */
export interface Ran {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end without blocking the test worker's event loop. A `spawnSync` that
 * outlasts a minute (an npm install, a whole ERT suite on a loaded machine) stops the worker from
 * answering vitest, which then reports `Timeout calling "onTaskUpdate"` and fails the run.
 * Past `timeoutMs` the command gets SIGTERM, as spawnSync's timeout sends.
 */
export function runProcess(command: string, args: readonly string[], options: { cwd?: string; timeoutMs: number }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGTERM"), options.timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

/** {@link runProcess}, failing with what the command printed unless it exits with 0. */
export async function runOrFail(command: string, args: readonly string[], options: { cwd?: string; timeoutMs: number }): Promise<Ran> {
  const ran = await runProcess(command, args, options);
  if (ran.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} ended with ${ran.status ?? ran.signal}:\n${ran.stderr.slice(-4000)}`);
  }
  return ran;
}
