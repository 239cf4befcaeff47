import type { Rule } from "./rules.js";

/**
 * "Always" rules kept beyond one runner (the shared store's): every runner on the store applies
 * them, and an answer given at the shared desk with "always" adds to them.
 */
export interface SharedRules {
  /** The rules in force now (read from the store in the background, so this is cheap). */
  list(): readonly Rule[];
  /** Settles once the rules have been read the first time. */
  ready(): Promise<void>;
  add(rules: readonly Rule[], origin: { by: string; tool?: string; toolCallId?: string }): Promise<void>;
}

/**
 * Where the runner writes its audit trail beyond the JSONL log: a call's start row before it runs
 * and its end row before its outcome is returned; a read's two rows at once, once it has run.
 */
export interface AuditSink {
  begin(toolCallId: string, tool: string, args: unknown): Promise<void>;
  end(toolCallId: string, tool: string, record: Record<string, unknown>): Promise<void>;
  /** A read's start and end rows together, in one write: they stand or fall together. */
  read(toolCallId: string, tool: string, args: unknown, record: Record<string, unknown>): Promise<void>;
}
