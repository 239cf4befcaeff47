import { execFile } from "../../process/child-process.js";
import { existsSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

/** An interpreter as the sandbox sees it: its path, and host folders it needs mounted read-only. */
export interface Interpreter {
  path: string;
  binds: string[];
}

export type Language = "python" | "bash";

const cache = new Map<string, Promise<Interpreter | undefined>>();

/** Finds the interpreter for `language` once per (language, configured path). */
export function resolveInterpreter(language: Language, configured?: string): Promise<Interpreter | undefined> {
  const key = `${language}\0${configured ?? ""}`;
  let found = cache.get(key);
  if (!found) {
    found = language === "python" ? resolvePython(configured) : Promise.resolve(resolveBash());
    cache.set(key, found);
  }
  return found;
}

/** What to tell the model when the interpreter is missing. */
export function missingInterpreterMessage(language: Language): string {
  return language === "python"
    ? "Python is not available: no python3 was found (install it, e.g. `sudo apt-get install " +
        'python3`, or set sandbox.python in tackle.config.json). Use language "bash" meanwhile.'
    : "bash is not available on this system, so run_code cannot run bash code.";
}

const isFile = (p: string) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/** Under /usr (or a top-level system folder), which the sandbox always mounts read-only. */
function isSystemPath(p: string): boolean {
  return ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/"].some((prefix) => p.startsWith(prefix));
}

function resolveBash(): Interpreter | undefined {
  const found = ["/usr/bin/bash", "/bin/bash"].find(isFile);
  return found ? { path: found, binds: [] } : undefined;
}

/**
 * The system's /usr/bin/python3 when there is one (Debian's; nothing else to mount); otherwise
 * the `python3` on PATH (pyenv, a venv), asked for its real executable and prefixes, which are
 * mounted read-only so it finds its standard library. A pyenv shim is a script that would need
 * pyenv inside, so the real executable is used, never the shim.
 */
async function resolvePython(configured?: string): Promise<Interpreter | undefined> {
  if (!configured && isFile("/usr/bin/python3")) return { path: "/usr/bin/python3", binds: [] };
  const candidate = configured ?? "python3";
  const info = await new Promise<string | undefined>((resolve) => {
    execFile(
      candidate,
      ["-c", "import sys; print(sys.executable); print(sys.prefix); print(sys.base_prefix)"],
      { timeout: 10_000, env: process.env },
      (err, stdout) => resolve(err ? undefined : stdout),
    );
  });
  if (!info) return undefined;
  const [executable, prefix, basePrefix] = info
    .trim()
    .split("\n")
    .map((l) => l.trim());
  if (!executable || !existsSync(executable)) return undefined;
  const binds = new Set<string>();
  for (const p of [prefix, basePrefix]) {
    if (!p || !existsSync(p)) continue;
    const real = realpathSync(p);
    if (!isSystemPath(real + "/") && real !== "/usr") binds.add(real);
  }
  const realExe = realpathSync(executable);
  const covered = (p: string) => isSystemPath(p) || [...binds].some((b) => p === b || p.startsWith(b + path.sep));
  // A venv's bin/python is a symlink to the base interpreter: mount the venv and where it points.
  if (!covered(executable)) binds.add(path.dirname(executable));
  if (!covered(realExe)) binds.add(path.dirname(realExe));
  return { path: executable, binds: [...binds] };
}
