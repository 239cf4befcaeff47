import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { ToolError } from "../../core/errors.js";
import type { GrepWorkerInput, GrepWorkerOutput } from "./grep-worker.js";

/**
 * Runs the built-in search in a worker thread and terminates it on abort, so the call is
 * cancellable even while V8 is inside one long regex match (backtracking patterns such as
 * `(a|aa)+$` or backreferences). Resolves `undefined` when no worker can be started (an
 * unusual runtime), and the caller searches in-process instead.
 */
export function grepOffThread(input: GrepWorkerInput, signal: AbortSignal): Promise<GrepWorkerOutput | undefined> {
  const script = workerScript();
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new ToolError("CANCELLED", "The search was cancelled."));
      return;
    }
    let worker: Worker;
    try {
      if (!script) throw new Error("no worker script");
      worker = new Worker(script.code, { eval: script.eval, workerData: input, stderr: true });
    } catch {
      resolve(undefined);
      return;
    }
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = () => {
      finish(() => reject(new ToolError("CANCELLED", "The search was cancelled.")));
      void worker.terminate();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (out: GrepWorkerOutput) => finish(() => resolve(out)));
    // A worker that cannot load its module fails before any message: search in-process instead.
    worker.once("error", () => finish(() => resolve(undefined)));
    worker.once("exit", () => finish(() => resolve(undefined)));
  });
}

let cachedScript: { code: string | URL; eval: boolean } | null | undefined;

/**
 * What the worker runs. Built, it is grep-worker.js beside this file. From source (tests, tsx)
 * it is TypeScript, and Node 20 applies no `--import` loader to a worker's entry module, so a
 * small bootstrap registers tsx's ESM hooks inside the worker and then imports it.
 */
function workerScript(): { code: string | URL; eval: boolean } | null {
  if (cachedScript !== undefined) return cachedScript;
  if (!import.meta.url.endsWith(".ts")) return (cachedScript = { code: new URL("./grep-worker.js", import.meta.url), eval: false });
  try {
    const cjs = createRequire(import.meta.url).resolve("tsx/esm/api");
    const esm = path.join(path.dirname(cjs), "index.mjs");
    if (!existsSync(esm)) return (cachedScript = null);
    const worker = new URL("./grep-worker.ts", import.meta.url).href;
    const code = `import(${JSON.stringify(pathToFileURL(esm).href)}).then((m) => { m.register(); return import(${JSON.stringify(worker)}); });`;
    return (cachedScript = { code, eval: true });
  } catch {
    return (cachedScript = null);
  }
}
