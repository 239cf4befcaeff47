import type { ApprovedBy } from "./result.js";
import type { ChangeAnswer, ChangeRequest, FileReads, Progress, ToolContext, ToolExecutionOptions } from "./tool.js";
import { openDefaultWorkspace, type ToolWorkspace } from "./tool-workspace.js";
import { silentLogger, type Logger } from "./logger.js";
import { CallMemo } from "./call-memo.js";

/** A call's signal: the caller's own, or the controller of the runner's attempt. */
export type SignalSource = AbortSignal | { readonly signal: AbortSignal };

const SOURCE = Symbol("tackle.signal-source");

/**
 * The context the runner gives one call's hooks and execute, whose arguments it has validated.
 * A class rather than an object literal: a literal with a symbol key or a getter is assembled by
 * the runtime on every call, and this is built once or twice per call.
 */
export class CallContext implements ToolContext {
  /** An own property, so a copy (`{ ...ctx }`) still reaches the call's signal (see completeContext). */
  readonly [SOURCE]: SignalSource;

  constructor(
    readonly toolCallId: string,
    source: SignalSource,
    readonly workspace: ToolWorkspace,
    readonly log: Logger,
    readonly memo: CallMemo,
    readonly outputLimit: number,
    readonly denied: (subject: string) => string | undefined,
    readonly onOutput: (chunk: string) => void,
    readonly onProgress: (progress: Progress) => void,
    readonly confirmChanges?: (request: ChangeRequest) => Promise<ChangeAnswer>,
    readonly approvedBy?: ApprovedBy,
    readonly reads?: FileReads,
  ) {
    this[SOURCE] = source;
  }

  /** A getter over the source, so a copy of the context (which keeps the source) reaches the same signal. */
  get signal(): AbortSignal {
    return signalOf(this[SOURCE]);
  }
}

function signalOf(source: SignalSource): AbortSignal {
  return source instanceof AbortSignal ? source : source.signal;
}

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
    signal: partial?.signal ?? copiedSignal(partial) ?? new AbortController().signal,
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

/**
 * The call's signal behind a copy of a runner's context (`{ ...ctx }`): the copy has no `signal`
 * (a getter is not copied) but keeps the call's source, so cancelling the call still reaches it.
 */
export function copiedSignal(options: ToolExecutionOptions | undefined): AbortSignal | undefined {
  const source = (options as { [SOURCE]?: SignalSource } | undefined)?.[SOURCE];
  return source ? signalOf(source) : undefined;
}

/** Whether the runner built this context (a copy of one is checked again: it may have been changed). */
export function isValidatedContext(ctx: ToolExecutionOptions | undefined): boolean {
  return ctx instanceof CallContext;
}
