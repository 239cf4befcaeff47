import { z } from "zod";
import type { GroupContext } from "../group.js";
import { formatIssues, describeIssues, asSentence } from "../../core/schema.js";
import { addressPolicy } from "../../net/address-guard.js";

/**
 * The `web` section of tackle.config.json.
 *
 * - `allowPrivateNetwork` — let web_fetch reach private, loopback and link-local addresses:
 *   `true` all of them, or a list of addresses and subnets (`["10.2.0.0/16"]`). Off by default;
 *   tests and trusted intranets turn it on.
 * - `autoApproveDomains` — spec 003's allowlist: calls to these domains (and their subdomains;
 *   `*.example.com` for subdomains only) never ask, POST included. GET asks nowhere by default;
 *   POST outside the list asks. In approval mode `none` every call asks,
 *   as that mode promises; add `permissions.allow: ["web_fetch(example.com)"]` to skip it there.
 * - `requireApprovalOutsideAllowlist` — spec 003's strict reading: GET to a domain outside the
 *   allowlist asks too, and a redirect to a domain that is neither the one asked for nor on the
 *   allowlist is not followed.
 */
export const WebConfigSchema = z
  .looseObject({
    allowPrivateNetwork: z
      .union([
        z.boolean(),
        z.array(z.string().refine((s) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(s.trim()), "an IP address or CIDR subnet")),
      ])
      .default(false),
    autoApproveDomains: z.array(z.string().min(1)).default([]),
    requireApprovalOutsideAllowlist: z.boolean().default(false),
  })
  .default({ allowPrivateNetwork: false, autoApproveDomains: [], requireApprovalOutsideAllowlist: false });

export type WebConfig = z.output<typeof WebConfigSchema>;

/** `services.<name>` with a base URL. */
const ServiceSchema = z.looseObject({ baseUrl: z.url({ protocol: /^https?$/ }).optional() }).default({});

function parseSection<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new Error(`Configuration ${where} is invalid: ${asSentence(formatIssues(describeIssues(parsed.error.issues)))}`);
  }
  return parsed.data;
}

export function webConfig(ctx: Pick<GroupContext, "config">): WebConfig {
  const config = parseSection(WebConfigSchema, (ctx.config as Record<string, unknown>).web, '"web"');
  try {
    addressPolicy(config.allowPrivateNetwork);
  } catch (err) {
    throw new Error(`Configuration "web.allowPrivateNetwork" is invalid: ${(err as Error).message}.`);
  }
  return config;
}

/** A service's base URL from `services.<name>.baseUrl`, without a trailing slash. */
export function serviceBaseUrl(ctx: Pick<GroupContext, "config">, name: string, fallback: string): string {
  const section = parseSection(ServiceSchema, ctx.config.services?.[name], `"services.${name}"`);
  return (section.baseUrl ?? fallback).replace(/\/+$/, "");
}
