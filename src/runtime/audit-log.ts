import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import path from "node:path";
import type { ToolOutcome } from "../core/result.js";
import { redact } from "../core/redact.js";

/** One line of the audit log (spec 002's ToolExecutionLog). */
export interface AuditRecord {
  timestamp: string;
  toolCallId: string;
  toolName: string;
  params: unknown;
  status: ToolOutcome["status"];
  result?: string;
  error?: string;
  errorCode?: string;
  executionTimeMs: number;
  approvedBy?: string;
  /** The result was the cached one of an earlier identical read: the tool did not run again. */
  cached?: true;
}

/**
 * A call's line in the audit trail, with secrets in its arguments and messages redacted. With `result: false`
 * the output is left out: the shared store's trail says what ran and how it ended, and copies of
 * workspace files do not belong in a table every agent's process writes to.
 */
export function auditRecord(args: unknown, outcome: ToolOutcome, options: { result?: boolean } = {}): AuditRecord {
  return {
    timestamp: new Date().toISOString(),
    toolCallId: outcome.toolCallId,
    toolName: outcome.toolName,
    params: redact(args),
    status: outcome.status,
    executionTimeMs: outcome.executionTimeMs,
    ...(outcome.approvedBy ? { approvedBy: outcome.approvedBy } : {}),
    ...(outcome.metadata?.["cached"] === true ? { cached: true as const } : {}),
    ...(outcome.status === "success" && options.result !== false ? { result: redact(outcome.content, 1_000) as string } : {}),
    ...(outcome.error ? { error: redact(outcome.error.message) as string, errorCode: outcome.error.code } : {}),
  };
}

/** An append-only JSONL file; secrets in arguments are redacted before they are written. */
export class AuditLog {
  readonly path: string;
  readonly #stream: WriteStream;

  constructor(file: string) {
    this.path = path.resolve(file);
    mkdirSync(path.dirname(this.path), { recursive: true });
    this.#stream = createWriteStream(this.path, { flags: "a", mode: 0o600 });
  }

  record(args: unknown, outcome: ToolOutcome): void {
    this.#stream.write(`${JSON.stringify(auditRecord(args, outcome))}\n`);
  }

  /** Flushes and closes the file. */
  close(): Promise<void> {
    return new Promise((resolve) => this.#stream.end(resolve));
  }
}
