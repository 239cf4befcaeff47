import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import { fetchGuestPage } from "./client.js";
import { parseJobCards, type JobCard } from "./parse.js";

/** Lower case with spaces, underscores and hyphens removed: "Full-time" and "full_time" agree. */
const squash = (v: string) => v.toLowerCase().replace(/[\s_-]+/g, "");

/**
 * A choice the model names in words (the JSON Schema lists them) that becomes LinkedIn's code.
 * Spellings are forgiving ("Full time", "full_time") and the codes themselves are accepted too.
 */
function choice<const N extends string, V extends string>(codes: Record<N, V>, aliases: Record<string, NoInfer<N>>, label: string) {
  const names = Object.keys(codes) as N[];
  const lookup = new Map<string, N>();
  for (const name of names) {
    lookup.set(squash(name), name);
    lookup.set(squash(codes[name]), name);
  }
  for (const [alias, name] of Object.entries(aliases)) lookup.set(squash(alias), name);
  return z
    .preprocess(
      (v) => (typeof v === "string" ? (lookup.get(squash(v)) ?? v) : v),
      z.enum(names as [N, ...N[]], { error: () => `expected one of ${names.join(", ")} (${label})` }),
    )
    .transform((name) => codes[name]);
}

/** One value or a list of them, or a comma-separated string. */
function oneOrMany<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (v) =>
      typeof v === "string"
        ? v
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean)
        : v,
    z.array(item).min(1),
  );
}

/** f_TPR: seconds since posting. */
const DATE_POSTED = choice(
  { past24h: "r86400", pastWeek: "r604800", pastMonth: "r2592000", any: "any" },
  {
    "24h": "past24h",
    day: "past24h",
    pastDay: "past24h",
    "past 24 hours": "past24h",
    week: "pastWeek",
    month: "pastMonth",
    anytime: "any",
  },
  "date posted",
);

/** f_JT letters; the letters themselves are also names the specs use. */
const JOB_TYPE = choice(
  { "full-time": "F", "part-time": "P", contract: "C", temporary: "T", internship: "I", volunteer: "V", other: "O" },
  {},
  "job type",
);

/** f_WT numbers. */
const REMOTE = choice(
  { "on-site": "1", remote: "2", hybrid: "3" },
  { onsite: "on-site", office: "on-site", "in person": "on-site" },
  "workplace type",
);

/** f_E numbers, internship to executive. */
const EXPERIENCE = choice(
  { internship: "1", entry: "2", associate: "3", "mid-senior": "4", director: "5", executive: "6" },
  { "entry level": "entry", junior: "entry", "mid-senior level": "mid-senior", mid: "mid-senior", senior: "mid-senior" },
  "experience level",
);

const SORT = choice({ relevance: "R", recent: "DD" }, { date: "recent", "most recent": "recent", newest: "recent" }, "sort order");

const LinkedInJobsInput = z
  .object({
    keywords: z.string().trim().max(500).optional().describe('Job title, skills or company, e.g. "senior rust engineer".'),
    location: z.string().trim().max(200).optional().describe('City, region or country, e.g. "Berlin, Germany" or "Remote".'),
    datePosted: DATE_POSTED.optional().describe("past24h, pastWeek, pastMonth or any."),
    jobType: oneOrMany(JOB_TYPE)
      .optional()
      .describe(
        "One or more of full-time, part-time, contract, temporary, internship, volunteer, other (LinkedIn's letters F, P, C, T, I, V, O work too).",
      ),
    remote: oneOrMany(REMOTE).optional().describe("One or more of on-site, remote, hybrid."),
    experienceLevel: oneOrMany(EXPERIENCE)
      .optional()
      .describe("One or more of internship, entry, associate, mid-senior, director, executive."),
    sortBy: SORT.optional().describe("relevance (default) or recent."),
    start: z
      .number()
      .int()
      .min(0)
      .max(1_000)
      .default(0)
      .describe("Offset of the first result, for paging (use the nextStart of the previous call)."),
  })
  .strict()
  .refine((a) => Boolean(a.keywords || a.location), { message: "give keywords, a location, or both", path: ["keywords"] });

type LinkedInJobsArgs = z.output<typeof LinkedInJobsInput>;

/** The guest search URL for these arguments (DESIGN.md's parameter table). */
export function searchUrl(base: string, args: LinkedInJobsArgs): string {
  const url = new URL(`${base}/jobs-guest/jobs/api/seeMoreJobPostings/search`);
  const p = url.searchParams;
  if (args.keywords) p.set("keywords", args.keywords);
  if (args.location) p.set("location", args.location);
  if (args.datePosted && args.datePosted !== "any") p.set("f_TPR", args.datePosted);
  if (args.jobType) p.set("f_JT", [...new Set(args.jobType)].join(","));
  if (args.remote) p.set("f_WT", [...new Set(args.remote)].join(","));
  if (args.experienceLevel) p.set("f_E", [...new Set(args.experienceLevel)].sort().join(","));
  if (args.sortBy) p.set("sortBy", args.sortBy);
  p.set("start", String(args.start));
  return url.href;
}

function describeSearch(args: LinkedInJobsArgs): string {
  const parts = [];
  if (args.keywords) parts.push(`"${args.keywords}"`);
  if (args.location) parts.push(`in ${args.location}`);
  return parts.join(" ");
}

function formatJob(job: JobCard, n: number): string {
  const lines = [`${n}. ${job.title}${job.company ? ` — ${job.company}` : ""}`];
  if (job.location) lines.push(`   Location: ${job.location}`);
  if (job.postedDate || job.postedText) {
    lines.push(
      `   Posted: ${[job.postedDate, job.postedText && job.postedText !== job.postedDate ? `(${job.postedText})` : ""].filter(Boolean).join(" ")}`,
    );
  }
  if (job.salary) lines.push(`   Salary: ${job.salary}`);
  if (job.benefits) lines.push(`   ${job.benefits}`);
  lines.push(`   Job ID: ${job.id}`);
  lines.push(`   URL: ${job.url}`);
  return lines.join("\n");
}

/** linkedin_jobs: spec 000's LinkedInJobsTool over the public guest search. */
export function createLinkedInJobsTool(baseUrl: string) {
  const host = new URL(baseUrl).hostname;
  return defineTool({
    name: TOOL.linkedinJobs,
    title: "Search LinkedIn jobs",
    description: loadDescription(import.meta.url, "linkedin-jobs.txt"),
    input: LinkedInJobsInput,
    effect: "network",
    idempotent: true,
    needsApproval: () => false,
    scope: { kind: "domain", subjects: () => [host] },
    timeoutMs: () => 35_000,
    execute: async (args, ctx) => {
      const url = searchUrl(baseUrl, args);
      const html = await fetchGuestPage(url, "job search results", ctx.signal);
      const { jobs, skipped } = parseJobCards(html, baseUrl);
      const nextStart = jobs.length ? args.start + jobs.length + skipped : undefined;
      const structured = { jobs, start: args.start, count: jobs.length, ...(nextStart !== undefined ? { nextStart } : {}), searchUrl: url };
      if (jobs.length === 0) {
        const content =
          args.start > 0
            ? `No more LinkedIn jobs found for ${describeSearch(args)} after the first ${args.start}.`
            : `No LinkedIn jobs found for ${describeSearch(args)}. Try broader keywords, another location or fewer filters.`;
        return { content, structured };
      }
      const header = `LinkedIn jobs for ${describeSearch(args)}: ${jobs.length} result${jobs.length === 1 ? "" : "s"} starting at ${args.start}.`;
      const footer = [
        skipped
          ? `(${skipped} card${skipped === 1 ? "" : "s"} on the page did not have the expected layout and ${skipped === 1 ? "was" : "were"} left out.)`
          : "",
        `More results: call linkedin_jobs again with start=${nextStart}. Full description: linkedin_job_detail with a job ID.`,
      ].filter(Boolean);
      return {
        content: `${header}\n\n${jobs.map((j, i) => formatJob(j, args.start + i + 1)).join("\n\n")}\n\n${footer.join("\n")}`,
        structured,
        metadata: { count: jobs.length, skipped },
        untrusted: { source: "LinkedIn job listings" },
      };
    },
  });
}
