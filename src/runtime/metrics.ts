import type { ToolOutcome } from "../core/result.js";

/** Per-tool figures (spec 002's ToolMetrics, with percentiles). */
export interface ToolMetrics {
  tool: string;
  calls: number;
  successes: number;
  errors: number;
  rejections: number;
  cancellations: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
}

const WINDOW = 1_000;

interface Counter {
  calls: number;
  successes: number;
  errors: number;
  rejections: number;
  cancellations: number;
  totalMs: number;
  /** The most recent durations, for percentiles in bounded memory. */
  recent: number[];
}

export class Metrics {
  readonly #tools = new Map<string, Counter>();

  record(outcome: ToolOutcome): void {
    let c = this.#tools.get(outcome.toolName);
    if (!c)
      this.#tools.set(
        outcome.toolName,
        (c = { calls: 0, successes: 0, errors: 0, rejections: 0, cancellations: 0, totalMs: 0, recent: [] }),
      );
    c.calls++;
    if (outcome.status === "success") c.successes++;
    else if (outcome.status === "error") c.errors++;
    else if (outcome.status === "rejected") c.rejections++;
    else c.cancellations++;
    c.totalMs += outcome.executionTimeMs;
    c.recent.push(outcome.executionTimeMs);
    if (c.recent.length > WINDOW) c.recent.shift();
  }

  get(tool: string): ToolMetrics | undefined {
    const c = this.#tools.get(tool);
    return c ? summarise(tool, c) : undefined;
  }

  all(): ToolMetrics[] {
    return [...this.#tools].map(([tool, c]) => summarise(tool, c));
  }
}

function summarise(tool: string, c: Counter): ToolMetrics {
  const sorted = [...c.recent].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    tool,
    calls: c.calls,
    successes: c.successes,
    errors: c.errors,
    rejections: c.rejections,
    cancellations: c.cancellations,
    meanMs: c.calls ? c.totalMs / c.calls : 0,
    p50Ms: at(0.5),
    p95Ms: at(0.95),
  };
}
