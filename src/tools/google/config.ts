import path from "node:path";
import { z } from "zod";
import type { TackleConfig } from "../../config/config.js";
import { describeIssues, formatIssues, asSentence } from "../../core/schema.js";

/** Google's documented OAuth endpoints. */
export const DEFAULT_AUTH_URL = "https://accounts.google.com/o/oauth2/v2/auth";
export const DEFAULT_TOKEN_URL = "https://oauth2.googleapis.com/token";

const HttpUrl = z.url({ protocol: /^https?$/ });

const GoogleServiceSchema = z.looseObject({
  /** Replaces both https://gmail.googleapis.com/ and https://www.googleapis.com/ (tests: a local fake). */
  baseUrl: HttpUrl.optional(),
  authUrl: HttpUrl.optional(),
  tokenUrl: HttpUrl.optional(),
  /** Where `.gmail-tokens/` and `.calendar-tokens/` live; relative to the workspace. Default the workspace. */
  tokenDir: z.string().min(1).optional(),
  /** How long the sign-in waits for the browser to come back. */
  authTimeoutMs: z.number().int().positive().optional(),
  /** Per-request time limit. */
  timeoutMs: z.number().int().positive().optional(),
});

/** `services.google` as the Gmail and Calendar tools read it. */
export interface GoogleServiceConfig {
  baseUrl?: string;
  authUrl: string;
  tokenUrl: string;
  tokenDir: string;
  authTimeoutMs: number;
  timeoutMs: number;
}

/** Reads `services.google` from tackle.config.json; throws with the offending field named. */
export function googleServiceConfig(config: TackleConfig, workspace: string): GoogleServiceConfig {
  const parsed = GoogleServiceSchema.safeParse(config.services?.["google"] ?? {});
  if (!parsed.success) {
    throw new Error(`services.google in the configuration is invalid: ${asSentence(formatIssues(describeIssues(parsed.error.issues)))}`);
  }
  const s = parsed.data;
  return {
    ...(s.baseUrl ? { baseUrl: s.baseUrl.endsWith("/") ? s.baseUrl : `${s.baseUrl}/` } : {}),
    authUrl: s.authUrl ?? DEFAULT_AUTH_URL,
    tokenUrl: s.tokenUrl ?? DEFAULT_TOKEN_URL,
    tokenDir: path.resolve(workspace, s.tokenDir ?? "."),
    authTimeoutMs: s.authTimeoutMs ?? 120_000,
    timeoutMs: s.timeoutMs ?? 30_000,
  };
}
