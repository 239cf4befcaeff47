import type { ApprovedBy, ToolExecutionResult, ToolOutcome } from "../core/result.js";
import { ToolError, type ErrorCode } from "../core/errors.js";
import type { Prepared } from "./parse-call.js";

/* The shapes a call ends in: every way out of the runner builds its outcome here. */

/** Milliseconds since `started`, to the hundredth: a duration people read, not float noise. */
export function elapsedMs(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

export function failed(id: string, name: string, started: number, code: ErrorCode, message: string): ToolOutcome {
  return errorOutcome(id, name, started, new ToolError(code, message));
}

export function withWait(outcome: ToolOutcome, p: Prepared): ToolOutcome {
  if (p.approvalWaitMs !== undefined) outcome.approvalWaitMs = Math.round(p.approvalWaitMs);
  return outcome;
}

export function errorOutcome(id: string, name: string, started: number, error: ToolError, approvedBy?: ApprovedBy): ToolOutcome {
  return {
    status: error.code === "CANCELLED" ? "cancelled" : "error",
    toolCallId: id,
    toolName: name,
    content: `Error [${error.code}]: ${error.message}`,
    error: {
      code: error.code,
      message: error.message,
      recoverable: error.recoverable,
      // What the tool attached for its caller; the runner's own bookkeeping (a failed result) stays out.
      ...(error.details && !("result" in error.details) ? { details: error.details } : {}),
    },
    executionTimeMs: elapsedMs(started),
    ...(approvedBy ? { approvedBy } : {}),
  };
}

export function rejected(p: Prepared, by: ApprovedBy, code: ErrorCode, message: string): ToolOutcome {
  return {
    status: "rejected",
    toolCallId: p.id,
    toolName: p.name,
    content: message,
    error: { code, message, recoverable: false },
    // It never ran.
    executionTimeMs: 0,
    approvedBy: by,
  };
}

export function cancelled(p: Prepared, approvedBy?: ApprovedBy): ToolOutcome {
  return errorOutcome(
    p.id,
    p.name,
    p.started,
    new ToolError("CANCELLED", `The call to ${p.name} was cancelled before it finished.`),
    approvedBy,
  );
}

/** What a result carries besides its text, added to its outcome (assigned, not spread: spreading costs more). */
export function addExtras(outcome: ToolOutcome, result: ToolExecutionResult): void {
  if (result.displayContent !== undefined) outcome.displayContent = result.displayContent;
  if (result.structured !== undefined) outcome.structured = result.structured;
  if (result.blocks?.length) outcome.blocks = result.blocks;
  if (result.metadata) outcome.metadata = { ...result.metadata };
}

export function changedList(outcome: ToolOutcome): Array<{ path: string; operation: string }> {
  const list = outcome.metadata?.changedPaths;
  return Array.isArray(list) ? (list as Array<{ path: string; operation: string }>) : [];
}

export function changedPaths(outcome: ToolOutcome): string[] {
  return changedList(outcome).map((c) => c.path);
}
