import type { Worker } from "node:worker_threads";
import { ToolError } from "../../core/errors.js";
import type { GrepWorkerInput, GrepWorkerOutput } from "./grep-worker.js";
import { startWorker, workerScript } from "./worker-script.js";

/** Threads kept for the next search once theirs is done. */
const MAX_IDLE = 2;
/** An idle thread ends after this long without a search. */
const IDLE_MS = 60_000;

interface Idle {
  worker: Worker;
  timer: NodeJS.Timeout;
  /** Drops the thread from the idle list if it ends while waiting. */
  onExit: () => void;
}

const idle: Idle[] = [];

/** A thread ready for a search: one left idle by an earlier search, or a new one. */
function takeWorker(): Worker {
  const kept = idle.pop();
  if (kept) {
    clearTimeout(kept.timer);
    kept.worker.off("exit", kept.onExit);
    kept.worker.ref();
    return kept.worker;
  }
  const script = workerScript("grep-worker");
  if (!script) throw new Error("no worker script");
  return startWorker(script, { stderr: true });
}

/** Keeps a thread whose search ended cleanly for the next one; it never holds the process open. */
function release(worker: Worker): void {
  if (idle.length >= MAX_IDLE) {
    void worker.terminate();
    return;
  }
  worker.unref();
  const drop = () => {
    const at = idle.indexOf(entry);
    if (at >= 0) idle.splice(at, 1);
  };
  const entry: Idle = {
    worker,
    timer: setTimeout(() => {
      drop();
      worker.off("exit", drop);
      void worker.terminate();
    }, IDLE_MS).unref(),
    onExit: drop,
  };
  worker.once("exit", drop);
  idle.push(entry);
}

/**
 * Runs the built-in search in a worker thread and terminates it on abort, so the call is
 * cancellable even while V8 is inside one long regex match (backtracking patterns such as
 * `(a|aa)+$` or backreferences). Threads are reused: the first search pays for starting one
 * (tens of milliseconds), later ones do not. Resolves `undefined` when no worker can be started
 * or it fails (an unusual runtime), and the caller searches in-process instead.
 */
export function grepOffThread(input: GrepWorkerInput, signal: AbortSignal): Promise<GrepWorkerOutput | undefined> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new ToolError("CANCELLED", "The search was cancelled."));
      return;
    }
    let worker: Worker;
    try {
      worker = takeWorker();
    } catch {
      resolve(undefined);
      return;
    }
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return false;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      worker.off("message", onMessage);
      worker.off("error", onFailure);
      worker.off("exit", onFailure);
      fn();
      return true;
    };
    const onAbort = () => {
      if (finish(() => reject(new ToolError("CANCELLED", "The search was cancelled.")))) void worker.terminate();
    };
    const onMessage = (out: GrepWorkerOutput) => {
      if (finish(() => resolve(out))) release(worker);
    };
    // A worker that cannot load its module, or whose search threw, ends: search in-process instead.
    const onFailure = () => {
      if (finish(() => resolve(undefined))) void worker.terminate();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    worker.on("message", onMessage);
    worker.on("error", onFailure);
    worker.on("exit", onFailure);
    worker.postMessage(input);
  });
}
