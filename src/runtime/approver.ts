import type { Effect } from "../core/effect.js";

/** What a person is asked to decide. */
export interface ApprovalRequest {
  toolCallId: string;
  /** Spec 003's name for {@link toolCallId}; the runner sets both. */
  stepId?: string;
  /** The tool name as called. */
  tool: string;
  args: Record<string, unknown>;
  effect: Effect;
  /** Why approval is needed, in a sentence. */
  reason: string;
  /** What will change (a unified diff for edits), when the tool can tell. */
  preview?: string;
  description?: string;
  /** What the agent was doing when it made the call, in its own words, for the person deciding. */
  context?: string;
  /**
   * The rules "always" keeps for this call, the narrowest that cover it (`write_file(notes.txt)`):
   * every front end shows them before the person grants them.
   */
  alwaysRules?: string[];
  /**
   * The preview for arguments the person edited, so a front end can show the new diff before the
   * edited call runs; it throws with why when they are invalid. Not enumerable: it never travels
   * with the request (to the store, over HTTP), only to front ends in the same process.
   */
  previewFor?: (args: Record<string, unknown>) => Promise<string | undefined>;
}

/** A person's answer. */
export interface ApprovalResponse {
  approved: boolean;
  /** Reaches the model with a rejection ("wrong file"). */
  message?: string;
  /**
   * Approve this and every later call like it for the session: by default the narrowest rules
   * that cover this call (its exact paths, commands or domains).
   */
  always?: boolean;
  /**
   * With `always`, a wider rule the person chose on purpose (`write_file(src/**)`, `write_file`).
   * Used only when it covers this call; otherwise the narrowest rules are kept.
   */
  alwaysRule?: string;
  /** Run with these arguments instead; they are validated again. */
  modifiedArgs?: Record<string, unknown>;
  /** Set when no person answered (nobody could be asked): the message is then tackle's, not theirs. */
  automatic?: boolean;
  /** Who answered, when the front end says (a name given at the shared desk). */
  by?: string;
  /** Answered at the shared desk: "always" then keeps its rules in the shared store, for every agent on it. */
  shared?: boolean;
}

/** Asks a person: a callback, the terminal, MCP elicitation or the dashboard. */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalResponse>;

/** For non-interactive use: every call that needs a person is rejected, with a reason the model can act on. */
export function rejectingApprover(reason: string): Approver {
  return async () => ({ approved: false, message: reason, automatic: true });
}

/** The default when nobody can be asked. */
export const noApprover: Approver = rejectingApprover(
  "nobody is available to approve it (no approver is attached); it needs an allow rule or a more permissive approval mode",
);
