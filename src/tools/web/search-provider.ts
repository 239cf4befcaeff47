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

/** Spec 000's ISearchProvider as a TypeScript reader writes it: `providerName` and `searchAsync(query, count)`. */
export interface SpecSearchProvider {
  readonly providerName?: string;
  readonly ProviderName?: string;
  searchAsync?(query: string, count: number): Promise<unknown[]>;
  SearchAsync?(query: string, count: number): Promise<unknown[]>;
}

const PROVIDER_FORMS =
  "{ name, search(query, count, signal) } or spec 000's { providerName, searchAsync(query, count) }, each answering [{ title, url, description }]";

/**
 * A search provider in either form, checked when it is given rather than on the first search: its
 * methods must be there, and each result must carry a title and a URL (`Title`/`Url` accepted).
 */
export function toSearchProvider(value: SearchProvider | SpecSearchProvider): SearchProvider {
  const v = value as Partial<SearchProvider> & SpecSearchProvider;
  if (typeof v !== "object" || v === null) throw new Error(`The search provider is not an object; give ${PROVIDER_FORMS}.`);
  if (typeof v.search === "function" && typeof v.name === "string") return value as SearchProvider;
  const searchAsync = typeof v.searchAsync === "function" ? v.searchAsync : typeof v.SearchAsync === "function" ? v.SearchAsync : undefined;
  const name = v.providerName ?? v.ProviderName ?? v.name;
  if (!searchAsync || typeof name !== "string") {
    const has = Object.keys(v)
      .concat(Object.getOwnPropertyNames(Object.getPrototypeOf(v) ?? {}))
      .filter((k) => k !== "constructor");
    throw new Error(`The search provider has ${has.length ? has.join(", ") : "no members"}; give ${PROVIDER_FORMS}.`);
  }
  return {
    name,
    search: async (query, count, signal) => {
      signal.throwIfAborted();
      const raw = await searchAsync.call(value, query, count);
      if (!Array.isArray(raw)) throw new Error(`${name} answered ${typeof raw} instead of a list of results.`);
      return raw.map((r, i) => resultFrom(r, i, name));
    },
  };
}

function resultFrom(raw: unknown, index: number, provider: string): SearchResult {
  const r = (raw ?? {}) as Record<string, unknown>;
  const pick = (...keys: string[]) => keys.map((k) => r[k]).find((x) => typeof x === "string") as string | undefined;
  const title = pick("title", "Title");
  const url = pick("url", "Url", "URL");
  if (title === undefined || url === undefined) throw new Error(`${provider}'s result ${index + 1} has no title or url.`);
  return { title, url, description: pick("description", "Description", "snippet") ?? "" };
}
