import { z } from "zod";
import type { ApprovalResponse } from "../runtime/approver.js";
import { parse } from "./http-json.js";
import { oneLine } from "../core/visible.js";

const AnswerBody = z.object({
  approved: z.boolean(),
  message: z.string().max(10_000).optional(),
  always: z.boolean().optional(),
  /** A wider rule than the narrowest, chosen on purpose; kept only when it covers the call. */
  alwaysRule: z.string().min(1).max(1000).optional(),
  modifiedArgs: z.record(z.string(), z.unknown()).optional(),
  /** Who answers, as the front end names them: kept with the answer and any rule it saves. */
  by: z.string().min(1).max(100).optional(),
});
const ApproveBody = AnswerBody.omit({ approved: true });
const RejectBody = z.object({ message: z.string().max(10_000).optional(), by: z.string().min(1).max(100).optional() });

/** Spec 002's `POST /approve` and `/reject`: the call named in the body, its message as `user_message` too. */
const NamedCall = z
  .object({
    tool_call_id: z.string().min(1).max(200).optional(),
    toolCallId: z.string().min(1).max(200).optional(),
    id: z.string().min(1).max(200).optional(),
    user_message: z.string().max(10_000).optional(),
  })
  .refine((b) => b.tool_call_id ?? b.toolCallId ?? b.id, { message: "name the call: tool_call_id (or id)" });

/** The call a spec 002 body names, and the body with `user_message` read as `message`. */
export function namedCall(raw: unknown): { id: string; body: Record<string, unknown> } {
  const b = parse(NamedCall, raw);
  const { tool_call_id: _a, toolCallId: _b, id: _c, user_message, ...rest } = raw as Record<string, unknown>;
  return {
    id: (b.tool_call_id ?? b.toolCallId ?? b.id)!,
    body: { ...rest, ...(user_message !== undefined && rest.message === undefined ? { message: user_message } : {}) },
  };
}

/**
 * A person's answer from a request body: `POST /api/approvals/:id/approve` (optionally with a
 * message, "always" and edited arguments), `/reject` (optionally with a message), or the
 * approval itself with `{ approved, ... }`.
 */
export function approvalAnswer(kind: "approve" | "reject" | undefined, raw: unknown): { response: ApprovalResponse; by?: string } {
  const b = parse(kind === "approve" ? ApproveBody : kind === "reject" ? RejectBody : AnswerBody, raw);
  return { response: answerOf(kind, raw), ...(b.by !== undefined ? { by: oneLine(b.by) } : {}) };
}

function answerOf(kind: "approve" | "reject" | undefined, raw: unknown): ApprovalResponse {
  if (kind === "approve") {
    const b = parse(ApproveBody, raw);
    return {
      approved: true,
      ...(b.message !== undefined ? { message: b.message } : {}),
      ...(b.always ? { always: true, ...(b.alwaysRule ? { alwaysRule: b.alwaysRule } : {}) } : {}),
      ...(b.modifiedArgs ? { modifiedArgs: b.modifiedArgs } : {}),
    };
  }
  if (kind === "reject") {
    const b = parse(RejectBody, raw);
    return { approved: false, ...(b.message !== undefined ? { message: b.message } : {}) };
  }
  const b = parse(AnswerBody, raw);
  return {
    approved: b.approved,
    ...(b.message !== undefined ? { message: b.message } : {}),
    ...(b.approved && b.always ? { always: true, ...(b.alwaysRule ? { alwaysRule: b.alwaysRule } : {}) } : {}),
    ...(b.approved && b.modifiedArgs ? { modifiedArgs: b.modifiedArgs } : {}),
  };
}
