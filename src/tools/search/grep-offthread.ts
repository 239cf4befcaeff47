import { Worker } from "node:worker_threads";
import { ToolError } from "../../core/errors.js";
import type { GrepWorkerInput, GrepWorkerOutput } from "./grep-worker.js";
import { workerScript } from "./worker-script.js";

/**
 * Runs the built-in search in a worker thread and terminates it on abort, so the call is
 * cancellable even while V8 is inside one long regex match (backtracking patterns such as
 * `(a|aa)+$` or backreferences). Resolves `undefined` when no worker can be started (an
 * unusual runtime), and the caller searches in-process instead.
 */
export function grepOffThread(input: GrepWorkerInput, signal: AbortSignal): Promise<GrepWorkerOutput | undefined> {
  const script = workerScript("grep-worker");
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
