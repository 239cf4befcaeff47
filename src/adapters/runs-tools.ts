import type { ToolRegistry } from "../registry/registry.js";
import type { ToolOutcome } from "../core/result.js";
import type { ToolCall } from "../core/tool-call.js";

/** How a call is run: cancellation, what the agent is doing, and output as it arrives. */
export interface CallOptions {
  signal?: AbortSignal;
  context?: string;
  scope?: string;
  onOutput?: (chunk: string, toolCallId: string) => void;
}

/** What the adapters need of a runner: its registry, `run` and `runAll` (a ToolRunner has all three). */
export interface RunsTools {
  readonly registry: ToolRegistry;
  run(call: ToolCall, options?: CallOptions): Promise<ToolOutcome>;
  runAll(calls: readonly ToolCall[], options?: CallOptions): Promise<ToolOutcome[]>;
}

/** Options every agent loop takes. */
export interface AgentLoopOptions {
  /** Most model turns before the loop stops even if the model still calls tools. Default 10. */
  maxSteps?: number;
  signal?: AbortSignal;
  /** What the agent is doing, shown to a person asked to approve a call. */
  context?: string;
  /** Each piece of tool output as it arrives (a shell command's lines). */
  onToolOutput?: (chunk: string, toolCallId: string) => void;
  /** Every tool outcome, as the loop gets it. */
  onToolOutcome?: (outcome: ToolOutcome) => void;
}

/** How an agent loop ended. */
export interface AgentLoopEnd {
  /** "done": the model stopped calling tools; "max-steps": it was stopped. */
  stopped: "done" | "max-steps";
  /** Model turns taken. */
  steps: number;
}

export const DEFAULT_MAX_STEPS = 10;

/** Runs one turn's calls through the runner, with the loop's options. */
export async function runTurn(runner: RunsTools, calls: readonly ToolCall[], options: AgentLoopOptions): Promise<ToolOutcome[]> {
  const outcomes = await runner.runAll(calls, {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.context !== undefined ? { context: options.context } : {}),
    ...(options.onToolOutput ? { onOutput: options.onToolOutput } : {}),
  });
  for (const outcome of outcomes) options.onToolOutcome?.(outcome);
  return outcomes;
}
