import { z } from "zod";
import type { TackleConfig } from "../../config/config.js";
import { describeIssues, formatIssues } from "../../core/schema.js";

/** The Admin API's public address; `services.anthropic.baseUrl` points tests at a local fake. */
export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";

const AnthropicServiceSchema = z.looseObject({
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** Per-request time limit. */
  timeoutMs: z.number().int().positive().optional(),
});

/** `services.anthropic` as this group reads it. */
export interface AnthropicServiceConfig {
  baseUrl: string;
  timeoutMs: number;
}

/** Reads `services.anthropic` from tackle.config.json; throws with the offending field named. */
export function anthropicServiceConfig(config: TackleConfig): AnthropicServiceConfig {
  const parsed = AnthropicServiceSchema.safeParse(config.services?.["anthropic"] ?? {});
  if (!parsed.success) {
    throw new Error(`services.anthropic in the configuration is invalid: ${formatIssues(describeIssues(parsed.error.issues))}.`);
  }
  // Spec 000 names https://api.anthropic.com/v1/organizations as the base; the paths here carry /v1/organizations.
  const baseUrl = (parsed.data.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL).replace(/\/v1(\/organizations)?\/?$/, "");
  return { baseUrl, timeoutMs: parsed.data.timeoutMs ?? 30_000 };
}
