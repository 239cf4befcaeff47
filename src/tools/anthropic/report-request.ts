import { z } from "zod";

/** The three reports spec 000's anthropic_usage offers. */
export const ACTIONS = ["usage", "cost", "claude_code"] as const;
export type ReportAction = (typeof ACTIONS)[number];

export const BUCKET_WIDTHS = ["1m", "1h", "1d"] as const;
export type BucketWidth = (typeof BUCKET_WIDTHS)[number];

/** Where each report lives under the Admin API (documented paths). */
export const REPORT_PATHS: Readonly<Record<ReportAction, string>> = {
  usage: "/v1/organizations/usage_report/messages",
  cost: "/v1/organizations/cost_report",
  claude_code: "/v1/organizations/usage_report/claude_code",
};

/** The `group_by[]` values each report accepts, from the Admin API reference. */
export const GROUP_BY: Readonly<Record<ReportAction, readonly string[]>> = {
  usage: [
    "api_key_id",
    "workspace_id",
    "model",
    "service_tier",
    "context_window",
    "inference_geo",
    "speed",
    "account_id",
    "service_account_id",
  ],
  cost: ["workspace_id", "description"],
  claude_code: [],
};

/** Largest `limit` (time buckets, or records for claude_code) the API accepts. */
export const LIMIT_MAX: Readonly<Record<string, number>> = {
  "usage:1d": 31,
  "usage:1h": 168,
  "usage:1m": 1440,
  "cost:1d": 31,
  claude_code: 1000,
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** RFC 3339 with a zone (Z or ±hh:mm); seconds and fractions optional. */
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

function validDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(text);
}

function validDateTime(text: string): boolean {
  return DATETIME.test(text) && !Number.isNaN(new Date(text).getTime());
}

/** A single value where a list is expected is read as a list of one: models often send `"model"`. */
const StringList = z.union([z.string(), z.array(z.string())]).transform((v) => (typeof v === "string" ? [v] : v));

/**
 * anthropic_usage's arguments. Every combination the API would refuse is refused here, so no
 * request is sent for a call that cannot succeed.
 */
export const UsageArgsSchema = z
  .strictObject({
    action: z
      .enum(ACTIONS)
      .describe(
        "usage = token usage of the Messages API; cost = spend in USD; claude_code = Claude Code productivity metrics for one day.",
      ),
    starting_at: z
      .string()
      .describe(
        "Start. usage/cost: RFC 3339 (2026-11-01T00:00:00Z) or a date (2026-11-01, read as midnight UTC). claude_code: a date YYYY-MM-DD (one UTC day).",
      ),
    ending_at: z.string().optional().describe("End, exclusive (usage/cost only); same formats as starting_at."),
    bucket_width: z.enum(BUCKET_WIDTHS).optional().describe("Bucket size: 1m, 1h or 1d (usage); cost supports only 1d. Default 1d."),
    group_by: StringList.optional().describe(
      `Break results down by: usage → ${GROUP_BY.usage.join(", ")}; cost → ${GROUP_BY.cost.join(", ")}.`,
    ),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("Buckets per page (records per page for claude_code). All pages are fetched up to a bound."),
  })
  .superRefine((args, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    const { action } = args;
    if (action === "claude_code") {
      if (!validDate(args.starting_at))
        issue("starting_at", `claude_code takes a date YYYY-MM-DD (one UTC day), not "${args.starting_at}"`);
      if (args.ending_at !== undefined) issue("ending_at", "claude_code reports one day; it takes no ending_at");
      if (args.bucket_width !== undefined) issue("bucket_width", "claude_code reports one day; it takes no bucket_width");
      if (args.group_by?.length) issue("group_by", "claude_code cannot be grouped");
    } else {
      for (const key of ["starting_at", "ending_at"] as const) {
        const value = args[key];
        if (value !== undefined && !validDate(value) && !validDateTime(value)) {
          issue(key, `expected an RFC 3339 timestamp with a zone (2026-11-01T00:00:00Z) or a date (2026-11-01), not "${value}"`);
        }
      }
      if (action === "cost" && args.bucket_width !== undefined && args.bucket_width !== "1d") {
        issue("bucket_width", `the cost report supports only 1d buckets, not ${args.bucket_width}`);
      }
      const allowed = GROUP_BY[action];
      for (const g of args.group_by ?? []) {
        if (!allowed.includes(g)) issue("group_by", `"${g}" is not a ${action} grouping; use one of ${allowed.join(", ")}`);
      }
      if (args.starting_at && args.ending_at && validInstant(args.starting_at) && validInstant(args.ending_at)) {
        if (toInstant(args.ending_at) <= toInstant(args.starting_at)) issue("ending_at", "ending_at must be after starting_at");
      }
    }
    if (args.limit !== undefined) {
      const key = action === "claude_code" ? action : `${action}:${args.bucket_width ?? "1d"}`;
      const max = LIMIT_MAX[key]!;
      if (args.limit > max) issue("limit", `at most ${max} for ${key.replace(":", " with bucket ")}`);
    }
  });

export type UsageArgs = z.output<typeof UsageArgsSchema>;

function validInstant(text: string): boolean {
  return validDate(text) || validDateTime(text);
}

/** A date means midnight UTC: the API's buckets are snapped to UTC. */
function toInstant(text: string): string {
  return DATE.test(text) ? `${text}T00:00:00Z` : text;
}

/** The documented query for one report request (without paging). */
export function reportQuery(args: UsageArgs): URLSearchParams {
  const q = new URLSearchParams();
  if (args.action === "claude_code") {
    q.set("starting_at", args.starting_at);
  } else {
    q.set("starting_at", toInstant(args.starting_at));
    if (args.ending_at) q.set("ending_at", toInstant(args.ending_at));
    q.set("bucket_width", args.bucket_width ?? "1d");
    for (const g of args.group_by ?? []) q.append("group_by[]", g);
  }
  if (args.limit !== undefined) q.set("limit", String(args.limit));
  return q;
}
