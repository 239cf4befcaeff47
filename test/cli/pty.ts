import { spawn } from "node:child_process";
import { CLI } from "./run-cli.js";

/** A `tackle` run inside a real pseudo-terminal, typed at as a person would. */
export interface TerminalSession {
  /** Everything the terminal showed so far (stdout and stderr together, \r\n as \n). */
  screen(): string;
  /** Resolves once the screen matches; rejects after `timeoutMs` with what was on it. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  type(text: string): void;
  /** The exit code, once the command has ended. */
  exited: Promise<number | null>;
}

const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;

/**
 * Runs the built CLI under util-linux `script`, which gives it a terminal for stdin, stdout and
 * stderr and passes what is typed to it. Generous time limits: the machine may be busy.
 */
export function inTerminal(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): TerminalSession {
  const command = [process.execPath, CLI, ...args].map(quote).join(" ");
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: "xterm-256color", ...options.env };
  // Colour is decided by each test; a FORCE_COLOR or NO_COLOR from the runner must not leak in.
  // So is the editor `e` opens (vitest sets EDITOR=vi for itself).
  for (const key of ["FORCE_COLOR", "NO_COLOR", "EDITOR", "VISUAL"]) if (!(options.env && key in options.env)) delete env[key];
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: options.cwd ?? process.cwd(),
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let text = "";
  const waiters = new Set<() => void>();
  let ended = false;
  const onData = (d: Buffer) => {
    text += String(d).replace(/\r\n/g, "\n");
    for (const w of waiters) w();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const killer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(killer);
      ended = true;
      for (const w of waiters) w();
      resolve(code);
    });
  });
  return {
    screen: () => text,
    type: (s) => child.stdin.write(s),
    exited,
    waitFor: (pattern, timeoutMs = 40_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(text)) {
            cleanup();
            resolve();
          } else if (ended) {
            cleanup();
            reject(new Error(`The command ended without showing ${pattern}. It showed:\n${text}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`Waited ${timeoutMs} ms for ${pattern}. The terminal showed:\n${text}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
  };
}
