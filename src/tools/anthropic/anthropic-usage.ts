import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import type { AnthropicAdminClient } from "./admin-client.js";
import { fetchReport } from "./report-pages.js";
import { UsageArgsSchema } from "./report-request.js";
import { formatReport, withUsd } from "./report-format.js";

/** spec 000's anthropic_usage: the Admin API's usage, cost and Claude Code reports. */
export function anthropicUsageTool(client: AnthropicAdminClient) {
  return defineTool({
    name: TOOL.anthropicUsage,
    title: "Anthropic usage and cost",
    description: loadDescription(import.meta.url, "anthropic-usage.txt"),
    input: UsageArgsSchema,
    effect: "read",
    idempotent: true,
    execute: async (args, ctx) => {
      const report = await fetchReport(client, args, ctx.signal);
      const data = withUsd(report.data) as Array<Record<string, unknown>>;
      return {
        content: formatReport(args, report, data),
        structured: { action: args.action, data, pages: report.pages, has_more: report.incomplete },
      };
    },
  });
}
