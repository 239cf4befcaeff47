import { z } from "zod";
import type { AnthropicAdminClient } from "./admin-client.js";
import { malformed } from "./admin-client.js";
import { REPORT_PATHS, reportQuery, type UsageArgs } from "./report-request.js";

/** Pages fetched at most per call; past it the answer says more data exists. */
export const MAX_PAGES = 10;

/** One page of any report: `{ data, has_more, next_page }` (the documented envelope). */
const PageSchema = z.looseObject({
  data: z.array(z.looseObject({})),
  has_more: z.boolean().optional(),
  next_page: z.string().nullable().optional(),
});

/** Time-bucketed reports (usage, cost): each item is `{ starting_at, ending_at, results[] }`. */
export const BucketSchema = z.looseObject({
  starting_at: z.string(),
  ending_at: z.string(),
  results: z.array(z.looseObject({})),
});
export type Bucket = z.infer<typeof BucketSchema>;

export interface ReportPages {
  data: Array<Record<string, unknown>>;
  pages: number;
  /** The API had more pages than {@link MAX_PAGES}. */
  incomplete: boolean;
}

/** Fetches a report, following `next_page` while `has_more`, up to {@link MAX_PAGES}. */
export async function fetchReport(client: AnthropicAdminClient, args: UsageArgs, signal: AbortSignal): Promise<ReportPages> {
  const data: Array<Record<string, unknown>> = [];
  const seen = new Set<string>();
  let page: string | undefined;
  for (let n = 1; ; n++) {
    const query = reportQuery(args);
    if (page) query.set("page", page);
    const raw = await client.get(REPORT_PATHS[args.action], query, signal);
    const parsed = PageSchema.safeParse(raw);
    if (!parsed.success) throw malformed("it lacks the documented { data: [...], has_more, next_page } shape");
    if (args.action !== "claude_code") {
      for (const item of parsed.data.data) {
        if (!BucketSchema.safeParse(item).success) throw malformed("a time bucket lacks starting_at, ending_at or results");
      }
    }
    data.push(...parsed.data.data);
    const next = parsed.data.next_page ?? undefined;
    if (!parsed.data.has_more || !next) return { data, pages: n, incomplete: false };
    // A server that hands back the same cursor would otherwise loop until the bound.
    if (seen.has(next)) throw malformed(`next_page "${next}" repeats`);
    seen.add(next);
    if (n >= MAX_PAGES) return { data, pages: n, incomplete: true };
    page = next;
  }
}
