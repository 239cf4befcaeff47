import type { AnyTool } from "../../core/tool.js";
import type { ToolGroup } from "../group.js";
import { linkedinBaseUrl } from "./config.js";
import { createLinkedInJobDetailTool } from "./linkedin-job-detail.js";
import { createLinkedInJobsTool } from "./linkedin-jobs.js";

export { createLinkedInJobsTool } from "./linkedin-jobs.js";
export { createLinkedInJobDetailTool } from "./linkedin-job-detail.js";

/**
 * linkedin_jobs and linkedin_job_detail, always registered: they read LinkedIn's public
 * guest pages and need no credentials. `"services": { "linkedin": { "baseUrl" } }` moves them.
 */
export const linkedinTools: ToolGroup = (ctx) => {
  const baseUrl = linkedinBaseUrl(ctx);
  const tools: AnyTool[] = [createLinkedInJobsTool(baseUrl), createLinkedInJobDetailTool(baseUrl)];
  return tools;
};
