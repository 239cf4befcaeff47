/** One web search hit (spec 000's SearchResult). */
export interface SearchResult {
  title: string;
  url: string;
  description: string;
}

/**
 * A pluggable web search backend (spec 000's ISearchProvider). Implement it to search with
 * something other than Brave, then pass it to `createWebSearchTool`.
 */
export interface SearchProvider {
  /** A name for messages ("Brave"). */
  readonly name: string;
  /** Up to `count` results for `query`; throws ToolError on failure; stops when `signal` aborts. */
  search(query: string, count: number, signal: AbortSignal): Promise<SearchResult[]>;
}
