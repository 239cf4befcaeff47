import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/cli/main.cjs");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `tackle` command (or the copy of it at `cli`) with no terminal attached. */
export function runCli(
  args: string[],
  options: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; cli?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.cli ?? CLI, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += String(d)));
    child.stderr.on("data", (d) => (stderr += String(d)));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

/** Runs the command inside a pseudo-terminal (util-linux `script`), typing `input` at it. */
export function runCliInTerminal(args: string[], input: string, cwd?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
    const child = spawn("script", ["-qec", command, "/dev/null"], { cwd: cwd ?? process.cwd(), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += String(d)));
    child.stderr.on("data", (d) => (stderr += String(d)));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // Typed once the prompt is showing, as a person would.
    let typed = false;
    child.stdout.on("data", () => {
      if (!typed && /Approve\?/.test(stdout)) {
        typed = true;
        child.stdin.write(input);
      }
    });
  });
}
