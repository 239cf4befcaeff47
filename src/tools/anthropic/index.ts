import type { ToolGroup } from "../group.js";
import { hasSecrets } from "../lazy-groups.js";
import { ANTHROPIC } from "./manifest.js";
import { AnthropicAdminClient } from "./admin-client.js";
import { anthropicServiceConfig } from "./config.js";
import { anthropicUsageTool } from "./anthropic-usage.js";

/**
 * spec 000's Anthropic tools: `anthropic_usage`, registered only when ANTHROPIC_ADMIN_API_KEY is
 * set. `services.anthropic.baseUrl` in tackle.config.json replaces https://api.anthropic.com.
 */
export const anthropicTools: ToolGroup = (ctx) => {
  if (!hasSecrets(ctx.env, ANTHROPIC.needs)) return [];
  const apiKey = ctx.env["ANTHROPIC_ADMIN_API_KEY"]!.trim();
  const service = anthropicServiceConfig(ctx.config);
  return [anthropicUsageTool(new AnthropicAdminClient({ apiKey, baseUrl: service.baseUrl, timeoutMs: service.timeoutMs }))];
};
