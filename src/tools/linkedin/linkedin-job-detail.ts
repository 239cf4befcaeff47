import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import { fetchGuestPage } from "./client.js";
import { jobIdFrom, parseJobDetail } from "./parse.js";

const LinkedInJobDetailInput = z
  .object({
    url: z
      .string()
      .trim()
      .min(1)
      .max(2_000)
      .optional()
      .describe("The job's LinkedIn URL (e.g. https://www.linkedin.com/jobs/view/3812345678) or its id."),
    jobId: z.string().trim().min(1).max(2_000).optional().describe("The job's id, as linkedin_jobs lists it."),
  })
  .strict()
  .transform((args, ctx) => {
    const given = args.jobId ?? args.url;
    if (!given) {
      ctx.addIssue({ code: "custom", path: ["url"], message: "give the job's url or jobId" });
      return z.NEVER;
    }
    const id = jobIdFrom(given);
    if (!id) {
      ctx.addIssue({
        code: "custom",
        path: [args.jobId ? "jobId" : "url"],
        message: `no LinkedIn job id in "${given.slice(0, 200)}"; give a URL like https://www.linkedin.com/jobs/view/3812345678 or the numeric id`,
      });
      return z.NEVER;
    }
    return { id };
  });

/** linkedin_job_detail: spec 000's LinkedInJobDetailTool over the public guest job page. */
export function createLinkedInJobDetailTool(baseUrl: string) {
  const host = new URL(baseUrl).hostname;
  return defineTool({
    name: TOOL.linkedinJobDetail,
    title: "Read a LinkedIn job posting",
    description: loadDescription(import.meta.url, "linkedin-job-detail.txt"),
    input: LinkedInJobDetailInput,
    effect: "network",
    idempotent: true,
    needsApproval: () => false,
    scope: { kind: "domain", subjects: () => [host] },
    timeoutMs: () => 35_000,
    execute: async ({ id }, ctx) => {
      // Only the id is taken from the model: the request always goes to the configured LinkedIn.
      const html = await fetchGuestPage(`${baseUrl}/jobs-guest/jobs/api/jobPosting/${id}`, `job posting ${id}`, ctx.signal);
      const job = parseJobDetail(html, id, baseUrl);
      const lines = [`${job.title ?? "(untitled)"}${job.company ? ` — ${job.company}` : ""}`];
      if (job.location) lines.push(`Location: ${job.location}`);
      if (job.postedText) lines.push(`Posted: ${job.postedText}`);
      if (job.applicants) lines.push(`Applicants: ${job.applicants}`);
      for (const c of job.criteria) lines.push(`${c.name}: ${c.value}`);
      lines.push(
        `Job ID: ${job.id}`,
        `URL: ${job.url}`,
        "",
        "--- Description ---",
        job.description || "(LinkedIn shows no description for this job.)",
      );
      return {
        content: lines.join("\n"),
        structured: job,
        untrusted: { source: `LinkedIn job posting ${id}` },
      };
    },
  });
}
