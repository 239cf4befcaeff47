import v8 from "node:v8";

/*
 * The bash grammar is WebAssembly with a huge lexer. Left to tier up, V8 recompiles it with its
 * optimising compiler as soon as a few commands are parsed: over a second of CPU on another thread,
 * which Node waits for before a short-lived process (one `tackle call shell`) may go on or exit,
 * for parses no faster on commands of a line or two. V8's baseline compiler alone is enough.
 */

/** Set on globalThis, so the launcher and the bundle it runs (each with its own copy of this module) agree. */
const PROCESS_WIDE = Symbol.for("tackle.baselineWasm");

function processWide(): boolean {
  if ((globalThis as Record<symbol, unknown>)[PROCESS_WIDE] === true) return true;
  return [...process.execArgv, process.env["NODE_OPTIONS"] ?? ""].some((a) => a.includes("liftoff-only"));
}

/**
 * Compiles all of this process's wasm with the baseline compiler. For the command line, which owns
 * its process: called before its code is loaded, because V8 refuses a code cache written under
 * other flags, and changing a flag later (even back) would make every cache written after it differ.
 */
export function baselineWasmForProcess(): void {
  v8.setFlagsFromString("--liftoff-only");
  (globalThis as Record<symbol, unknown>)[PROCESS_WIDE] = true;
}

/**
 * Compiles the wasm `compile` loads with the baseline compiler only. The flag is read when a module
 * is compiled, so in a program that embeds tackle it is put back at once for the program's own wasm.
 */
export async function withBaselineWasm<T>(compile: () => Promise<T>): Promise<T> {
  if (processWide()) return compile();
  v8.setFlagsFromString("--liftoff-only");
  try {
    return await compile();
  } finally {
    v8.setFlagsFromString("--no-liftoff-only");
  }
}
