import { spawn } from "../../process/child-process.js";
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../../core/errors.js";
import { killProcessTree } from "../../process/process-tree.js";

let cached: { key: string; found: string | undefined } | undefined;

/**
 * The ripgrep executable on PATH, looked up once per PATH value (a lookup is a handful of
 * stat calls, but grep runs often). `undefined` when ripgrep is not installed.
 */
export function findRipgrep(envPath: string | undefined = process.env.PATH): string | undefined {
  const key = envPath ?? "";
  if (cached?.key === key) return cached.found;
  let found: string | undefined;
  for (const dir of key.split(path.delimiter)) {
    // An empty or relative entry is relative to wherever the lookup runs (see process/safe-path.ts).
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, "rg");
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) {
        found = candidate;
        break;
      }
    } catch {
      // not here
    }
  }
  cached = { key, found };
  return found;
}

/**
 * Flags every ripgrep call shares, so that both backends apply the same rules: hidden files are
 * searched but `.git` is not; .gitignore is honoured even outside a git repository, together with
 * .ignore and .rgignore; the user's global git excludes, `.git/info/exclude` and any ripgrep
 * configuration file are not read (they would make results depend on the machine); symbolic
 * links are not followed.
 */
export const COMMON_RG_FLAGS: readonly string[] = [
  "--no-config",
  "--hidden",
  "--no-require-git",
  "--no-ignore-global",
  "--no-ignore-exclude",
  "--glob=!.git",
];

export interface RipgrepRun {
  code: number | null;
  stderr: string;
}

export interface RipgrepOptions {
  cwd: string;
  signal: AbortSignal;
  /** Receives stdout as it arrives. */
  onStdout: (chunk: Buffer) => void;
  /** Environment for ripgrep; the process's own by default. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs ripgrep without a shell, streaming stdout. On abort ripgrep and anything below it are
 * killed (killProcessTree) and the promise rejects with CANCELLED. `stop()` on the returned
 * handle ends the run early and resolves normally.
 *
 * ripgrep is not given a process group of its own (`detached: true`), unlike shell commands:
 * with the flags tackle passes (never --pre, never --search-zip) it starts no children, so
 * killing its pid ends all of it — and `detached` means setsid(), a new session, which on a
 * busy machine with scheduler autogroups cost each search a large, steady delay (bench: an
 * attached rg finished in ~100 ms where a detached one never took under ~250 ms).
 */
export function runRipgrep(rg: string, args: readonly string[], options: RipgrepOptions): { done: Promise<RipgrepRun>; stop: () => void } {
  let stopped = false;
  const env = { ...(options.env ?? process.env) };
  // A user's ripgrep configuration must not change what the tool finds.
  delete env.RIPGREP_CONFIG_PATH;
  const child = spawn(rg, [...args], {
    cwd: options.cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: false,
    windowsHide: true,
  });
  const kill = () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) void killProcessTree(child.pid);
  };
  const done = new Promise<RipgrepRun>((resolve, reject) => {
    let stderr = "";
    const onAbort = () => {
      kill();
      reject(new ToolError("CANCELLED", "The search was cancelled."));
    };
    if (options.signal.aborted) {
      onAbort();
      return;
    }
    options.signal.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (chunk: Buffer) => {
      if (!stopped) options.onStdout(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString("utf8");
    });
    child.on("error", (err) => {
      options.signal.removeEventListener("abort", onAbort);
      reject(new ToolError("UNAVAILABLE", `ripgrep could not be started (${err.message}).`, { cause: err }));
    });
    child.on("close", (code) => {
      options.signal.removeEventListener("abort", onAbort);
      if (options.signal.aborted) return;
      resolve({ code: stopped ? 0 : code, stderr });
    });
  });
  return {
    done,
    stop: () => {
      if (stopped) return;
      stopped = true;
      kill();
    },
  };
}
