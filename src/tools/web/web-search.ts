import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { TOOL } from "../names.js";
import { toSearchProvider, type SearchProvider, type SpecSearchProvider } from "./search-provider.js";

/** Queries longer than this are cut silently. */
export const MAX_QUERY_CHARS = 400;
export const DEFAULT_RESULT_COUNT = 5;
export const MAX_RESULT_COUNT = 20;

/** Out-of-range counts are clamped, not refused. */
const Count = z.preprocess(
  (v) => (typeof v === "number" && Number.isFinite(v) ? Math.min(MAX_RESULT_COUNT, Math.max(1, Math.round(v))) : v),
  z.number().int().min(1).max(MAX_RESULT_COUNT),
);

const WebSearchInput = z
  .object({
    query: z.string().trim().min(1).describe("What to search for (at most 400 characters are used)."),
    count: Count.optional().describe("Number of results, 1-20 (default 5)."),
  })
  .strict()
  .transform(({ query, count }) => ({ query: query.slice(0, MAX_QUERY_CHARS), count: count ?? DEFAULT_RESULT_COUNT }));

const WebSearchOutput = z.object({
  query: z.string(),
  results: z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string() })),
});

/** web_search over any SearchProvider (spec 000's WebSearchTool, spec 003's result). */
export function createWebSearchTool(given: SearchProvider | SpecSearchProvider) {
  const provider = toSearchProvider(given);
  return defineTool({
    name: TOOL.webSearch,
    title: "Search the web",
    description: loadDescription(import.meta.url, "web-search.txt"),
    input: WebSearchInput,
    parameterAliases: { numResults: "count" },
    output: WebSearchOutput,
    effect: "network",
    idempotent: true,
    // Spec 001 and 003: searching needs no approval; nothing is sent but the query.
    needsApproval: () => false,
    timeoutMs: () => 35_000,
    execute: async ({ query, count }, ctx) => {
      const results = await provider.search(query, count, ctx.signal);
      const header = `Search results for "${query}" (${results.length} result${results.length === 1 ? "" : "s"}, via ${provider.name}):`;
      const body = results.length
        ? results
            .map((r, i) => `${i + 1}. ${r.title || "(untitled)"}\n   URL: ${r.url}${r.description ? `\n   ${r.description}` : ""}`)
            .join("\n\n")
        : "No results found. Try other words.";
      return {
        content: `${header}\n\n${body}`,
        structured: { query, results: results.map((r) => ({ title: r.title, url: r.url, snippet: r.description })) },
        metadata: { provider: provider.name, count: results.length },
        untrusted: { source: `${provider.name} web search` },
      };
    },
  });
}
