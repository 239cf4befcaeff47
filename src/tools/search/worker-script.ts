import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Worker, WorkerOptions } from "node:worker_threads";
import { lazyRequire } from "../../process/lazy-require.js";

// Loaded by the first search that starts a thread, not by every run that lists the search tools.
const workerThreads = lazyRequire<typeof import("node:worker_threads")>("node:worker_threads");

/** What `new Worker` is given to run one of the worker modules in this folder. */
export interface WorkerScript {
  code: string | URL;
  eval: boolean;
}

const cached = new Map<string, WorkerScript | null>();

/**
 * What a worker running `name` (a module beside this file, without extension) is started with.
 * Built, it is `name`.js beside this file (the bundled command maps this file's URL back into
 * dist/). From source (tests, tsx) it is TypeScript, and Node 20 applies no `--import` loader
 * to a worker's entry module, so a small bootstrap registers tsx's ESM hooks inside the worker
 * and then imports it. `null` where neither is possible.
 */
export function workerScript(name: string): WorkerScript | null {
  let script = cached.get(name);
  if (script === undefined) {
    script = locate(name);
    cached.set(name, script);
  }
  return script;
}

function locate(name: string): WorkerScript | null {
  if (!import.meta.url.endsWith(".ts")) return { code: new URL(`./${name}.js`, import.meta.url), eval: false };
  try {
    const cjs = createRequire(import.meta.url).resolve("tsx/esm/api");
    const esm = path.join(path.dirname(cjs), "index.mjs");
    if (!existsSync(esm)) return null;
    const worker = new URL(`./${name}.ts`, import.meta.url).href;
    const code = `import(${JSON.stringify(pathToFileURL(esm).href)}).then((m) => { m.register(); return import(${JSON.stringify(worker)}); });`;
    return { code, eval: true };
  } catch {
    return null;
  }
}

/** A thread running `script`. */
export function startWorker(script: WorkerScript, options: WorkerOptions = {}): Worker {
  return new (workerThreads().Worker)(script.code, { ...options, eval: script.eval });
}
