import type { AnyTool } from "../../core/tool.js";
import type { ToolGroup } from "../group.js";
import { BraveSearchProvider, BRAVE_DEFAULT_BASE_URL } from "./brave.js";
import { serviceBaseUrl, webConfig } from "./config.js";
import { createWebFetchTool } from "./web-fetch.js";
import { createWebSearchTool } from "./web-search.js";

export { htmlToText } from "../../net/html-to-text.js";
export type { SearchProvider, SearchResult } from "./search-provider.js";
export { BraveSearchProvider } from "./brave.js";
export { createWebFetchTool } from "./web-fetch.js";
export { createWebSearchTool } from "./web-search.js";

/**
 * web_fetch always; web_search when BRAVE_API_KEY is set (spec 000's conditional registration) or
 * another search provider is given.
 * Configuration: `"web": { allowPrivateNetwork, autoApproveDomains, requireApprovalOutsideAllowlist }`
 * and `"services": { "brave": { "baseUrl" } }`.
 */
export const webTools: ToolGroup = (ctx) => {
  const config = webConfig(ctx);
  const tools: AnyTool[] = [createWebFetchTool(config)];
  const apiKey = ctx.env.BRAVE_API_KEY?.trim();
  if (ctx.searchProvider) tools.push(createWebSearchTool(ctx.searchProvider));
  else if (apiKey) {
    const baseUrl = serviceBaseUrl(ctx, "brave", BRAVE_DEFAULT_BASE_URL);
    tools.push(createWebSearchTool(new BraveSearchProvider({ apiKey, baseUrl })));
  }
  return tools;
};
