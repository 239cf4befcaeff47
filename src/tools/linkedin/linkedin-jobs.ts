import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import { fetchGuestPage } from "./client.js";
import { parseJobCards, type JobCard } from "./parse.js";

/** Lower case with spaces, underscores and hyphens removed: "Full-time" and "full_time" agree. */
const squash = (v: unknown) => (typeof v === "string" ? v.toLowerCase().replace(/[\s_-]+/g, "") : v);

function choice<const K extends string>(table: Record<string, K>, label: string) {
  const keys = [...new Set(Object.values(table))];
  return z.preprocess(
    (v) => {
      const key = squash(v);
      return typeof key === "string" && key in table ? table[key] : v;
    },
    z.enum(keys as [K, ...K[]], { error: () => `expected one of ${Object.keys(table).join(", ")} (${label})` }),
  );
}

/** One value or a list of them, or a comma-separated string. */
function oneOrMany<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (v) => (typeof v === "string" && v.includes(",") ? v.split(",").map((s) => s.trim()).filter(Boolean) : Array.isArray(v) ? v : v === undefined ? v : [v]),
    z.array(item).min(1),
  );
}

/** f_TPR: seconds since posting. */
const DATE_POSTED = {
  past24h: "r86400",
  "24h": "r86400",
  day: "r86400",
  pastday: "r86400",
  past24hours: "r86400",
  r86400: "r86400",
  pastweek: "r604800",
  week: "r604800",
  r604800: "r604800",
  pastmonth: "r2592000",
  month: "r2592000",
  r2592000: "r2592000",
  any: "any",
  anytime: "any",
} as const;

/** f_JT letters. */
const JOB_TYPE = {
  f: "F",
  fulltime: "F",
  p: "P",
  parttime: "P",
  c: "C",
  contract: "C",
  t: "T",
  temporary: "T",
  i: "I",
  internship: "I",
  v: "V",
  volunteer: "V",
  o: "O",
  other: "O",
} as const;

/** f_WT numbers. */
const REMOTE = { onsite: "1", "1": "1", remote: "2", "2": "2", hybrid: "3", "3": "3" } as const;

/** f_E numbers, internship to executive. */
const EXPERIENCE = {
  internship: "1",
  "1": "1",
  entry: "2",
  entrylevel: "2",
  "2": "2",
  associate: "3",
  "3": "3",
  midsenior: "4",
  midseniorlevel: "4",
  mid: "4",
  senior: "4",
  "4": "4",
  director: "5",
  "5": "5",
  executive: "6",
  "6": "6",
} as const;

const SORT = { relevance: "R", r: "R", recent: "DD", date: "DD", dd: "DD", mostrecent: "DD" } as const;

const LinkedInJobsInput = z
  .object({
    keywords: z.string().trim().max(500).optional().describe("Job title, skills or company, e.g. \"senior rust engineer\"."),
    location: z.string().trim().max(200).optional().describe("City, region or country, e.g. \"Berlin, Germany\" or \"Remote\"."),
    datePosted: choice(DATE_POSTED, "date posted").optional().describe("past24h, pastWeek, pastMonth or any."),
    jobType: oneOrMany(choice(JOB_TYPE, "job type"))
      .optional()
      .describe("One or more of full-time, part-time, contract, temporary, internship, volunteer, other (or F, P, C, T, I, V, O)."),
    remote: oneOrMany(choice(REMOTE, "workplace type")).optional().describe("One or more of on-site, remote, hybrid."),
    experienceLevel: oneOrMany(choice(EXPERIENCE, "experience level"))
      .optional()
      .describe("One or more of internship, entry, associate, mid-senior, director, executive."),
    sortBy: choice(SORT, "sort order").optional().describe("relevance (default) or recent."),
    start: z.number().int().min(0).max(1_000).default(0).describe("Offset of the first result, for paging (use the nextStart of the previous call)."),
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
    lines.push(`   Posted: ${[job.postedDate, job.postedText && job.postedText !== job.postedDate ? `(${job.postedText})` : ""].filter(Boolean).join(" ")}`);
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
        skipped ? `(${skipped} card${skipped === 1 ? "" : "s"} on the page did not have the expected layout and ${skipped === 1 ? "was" : "were"} left out.)` : "",
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
