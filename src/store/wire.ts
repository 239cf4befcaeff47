import { z } from "zod";
import { EFFECTS, type Effect } from "../core/effect.js";

/*
 * What the stores read back, parsed rather than trusted: a file another process was killing
 * itself while writing, or a row an older tackle wrote, is skipped instead of breaking the desk.
 */

const EffectSchema = z.enum(EFFECTS as [Effect, ...Effect[]]);

export const ApprovalRequestSchema = z.looseObject({
  toolCallId: z.string(),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  effect: EffectSchema,
  reason: z.string(),
  preview: z.string().optional(),
  description: z.string().optional(),
  context: z.string().optional(),
  alwaysRules: z.array(z.string()).optional(),
});

export const ApprovalResponseSchema = z.object({
  approved: z.boolean(),
  message: z.string().optional(),
  always: z.boolean().optional(),
  alwaysRule: z.string().optional(),
  modifiedArgs: z.record(z.string(), z.unknown()).optional(),
  automatic: z.boolean().optional(),
});

export const DeskEntrySchema = z.object({
  id: z.string(),
  request: ApprovalRequestSchema,
  instance: z.string(),
  askedAt: z.number(),
  expiresAt: z.number(),
});

export const DeskAnswerSchema = z.object({ response: ApprovalResponseSchema, by: z.string(), at: z.number() });

export const InstanceFileSchema = z.object({ id: z.string(), host: z.string(), pid: z.number().int(), desk: z.boolean() });

const KeptRule = z.object({
  id: z.string(),
  rule: z.string(),
  origin: z.enum(["person", "approval"]),
  by: z.string(),
  at: z.number(),
  toolCallId: z.string().optional(),
  tool: z.string().optional(),
});
export const RuleLineSchema = z.union([z.object({ removed: z.string(), by: z.string(), at: z.number() }), KeptRule]);
