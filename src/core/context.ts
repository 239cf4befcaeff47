import type { ToolContext, ToolExecutionOptions } from "./tool.js";
import { openDefaultWorkspace } from "./tool-workspace.js";
import { silentLogger } from "./logger.js";
import { CallMemo } from "./call-memo.js";

/** Marks a context the runner built, whose arguments it has already validated. */
export const VALIDATED = Symbol("tackle.validated");

let counter = 0;

/** Fills a partial context for direct `tool.execute(args)` calls outside the runner. */
export function completeContext(partial: ToolExecutionOptions | undefined): ToolContext {
  // The runner's context is complete already, and a copy would make the signal it makes only on demand.
  if (isValidatedContext(partial)) return partial as ToolContext;
  let workspace = partial?.workspace;
  const cwd = partial?.cwd ?? process.cwd();
  return {
    ...partial,
    toolCallId: partial?.toolCallId ?? `direct_${++counter}`,
    signal: partial?.signal ?? new AbortController().signal,
    // Opened only when the tool reaches for it: a tool that touches no files needs no boundary.
    get workspace() {
      return (workspace ??= openDefaultWorkspace(cwd));
    },
    onOutput: partial?.onOutput ?? (() => {}),
    onProgress: partial?.onProgress ?? (() => {}),
    log: partial?.log ?? silentLogger,
    memo: partial?.memo ?? new CallMemo(),
  };
}

export function isValidatedContext(ctx: ToolExecutionOptions | undefined): boolean {
  return ctx !== undefined && (ctx as Record<symbol, unknown>)[VALIDATED] === true;
}
