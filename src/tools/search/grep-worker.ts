// Runs the built-in search off the main thread (see grep-offthread.ts): V8's regex engine
// backtracks, so a pathological pattern can run for minutes inside one call that nothing can
// interrupt — except terminating the thread it runs on. The thread takes one search at a time
// and stays for the next: starting a thread costs more than most searches.
import { parentPort } from "node:worker_threads";
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

async function search(input: GrepWorkerInput): Promise<GrepWorkerOutput> {
  const collector = new HitCollector(input.limit);
  const pattern = compilePattern(input.pattern, input.caseInsensitive);
  await grepBuiltin(input.cwd, input.files, pattern, new AbortController().signal, (h) => collector.add(h));
  return {
    hits: collector.result().map((h) => ({ path: h.path, line: h.line, text: h.text, column: h.column })),
    total: collector.total,
    files: collector.fileCount,
  };
}

// A search that throws ends the thread (its "error" event): the caller then searches in-process.
parentPort!.on("message", (input: GrepWorkerInput) => {
  void search(input).then((output) => parentPort!.postMessage(output));
});
