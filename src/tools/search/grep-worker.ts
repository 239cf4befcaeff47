// Runs the built-in search off the main thread (see grep-offthread.ts): V8's regex engine
// backtracks, so a pathological pattern can run for minutes inside one call that nothing can
// interrupt — except terminating the thread it runs on.
import { parentPort, workerData } from "node:worker_threads";
import { grepBuiltin } from "./grep-builtin.js";
import { HitCollector } from "./hits.js";
import { compilePattern } from "./regex.js";

export interface GrepWorkerInput {
  cwd: string;
  files: string[];
  pattern: string;
  caseInsensitive: boolean;
  limit: number;
}

export interface GrepWorkerOutput {
  hits: Array<{ path: string; line: number; text: string; column: number }>;
  total: number;
  files: number;
}

const input = workerData as GrepWorkerInput;
const collector = new HitCollector(input.limit);
await grepBuiltin(input.cwd, input.files, compilePattern(input.pattern, input.caseInsensitive), new AbortController().signal, (h) =>
  collector.add(h),
);
const output: GrepWorkerOutput = {
  hits: collector.result().map((h) => ({ path: h.path, line: h.line, text: h.text, column: h.column })),
  total: collector.total,
  files: collector.fileCount,
};
parentPort!.postMessage(output);
