import type { ToolOutcome } from "../core/result.js";

/** Traces calls: one span per call, from its arrival to its outcome (see runtime/otel.ts). */
export interface CallTracer {
  start(tool: string, args: unknown): { end(outcome: ToolOutcome): void };
}
