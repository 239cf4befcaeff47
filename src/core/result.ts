import type { ToolErrorCode } from "./errors.js";

/** A non-text piece of a result (an image read from disk, MCP audio or resources). */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string } }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string; description?: string };

/** What a tool's execute returns (spec 001's ToolExecutionResult). */
export interface ToolExecutionResult {
  /** What the model reads. */
  content: string;
  /** What a person sees, when it should differ from `content`. */
  displayContent?: string;
  /** The call failed; `content` says why. The runner turns this into an error outcome. */
  isError?: boolean;
  /** An error code for `isError` results; EXECUTION_ERROR when absent. */
  errorCode?: ToolErrorCode;
  /** Machine-readable output, matching the tool's output schema when it has one. */
  structured?: unknown;
  /** Extra blocks (images, audio, resources) that travel beside the text. */
  blocks?: ContentBlock[];
  metadata?: Record<string, unknown>;
  /** Text came from outside (the web, an MCP server): the runner marks it as untrusted. */
  untrusted?: { source: string };
  /** Paths this call changed, relative to the workspace: invalidates cached reads, emits file.changed. */
  changedPaths?: Array<{ path: string; operation: "created" | "modified" | "deleted" | "moved" }>;
}

export type OutcomeStatus = "success" | "error" | "rejected" | "cancelled";

/** Who let the call run: nobody needed to (`auto`), a person, a config rule, or the policy (denials). */
export type ApprovedBy = "auto" | "user" | "config" | "policy";

/** The one shape every call ends in, whatever happened (spec 002's three result formats). */
export interface ToolOutcome {
  status: OutcomeStatus;
  toolCallId: string;
  /** The tool name as called (may be an alias). */
  toolName: string;
  /** What the model reads: output, an error message, or the rejection and its reason. */
  content: string;
  displayContent?: string;
  structured?: unknown;
  blocks?: ContentBlock[];
  metadata?: Record<string, unknown>;
  error?: { code: ToolErrorCode; message: string; recoverable: boolean; details?: Record<string, unknown> };
  /** For rejections: the person's message, if any (spec 002's user_message). */
  userMessage?: string;
  /** Time spent running the tool (retries included), not waiting for a person. */
  executionTimeMs: number;
  /** How long the person took to approve or reject, when one was asked. */
  approvalWaitMs?: number;
  approvedBy?: ApprovedBy;
}

/** Normalises what execute returned. */
export function toResult(value: string | ToolExecutionResult): ToolExecutionResult {
  return typeof value === "string" ? { content: value } : value;
}

/** An outcome as spec 003's result: `{ ok: true, value }` (the structured result, else the text) or `{ ok: false, error }`. */
export type ToolResult =
  { ok: true; value: unknown } | { ok: false; error: { code: string; message: string; details?: Record<string, unknown> } };

/** The {@link ToolResult} view of an outcome; rejections and cancellations are errors with their code. */
export function toToolResult(outcome: ToolOutcome): ToolResult {
  if (outcome.status === "success") return { ok: true, value: outcome.structured ?? outcome.content };
  if (!outcome.error)
    return { ok: false, error: { code: outcome.status === "rejected" ? "REJECTED" : "CANCELLED", message: outcome.content } };
  const { code, message, details } = outcome.error;
  return { ok: false, error: { code, message, ...(details ? { details } : {}) } };
}
