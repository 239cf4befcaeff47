import { z } from "zod";
import { ToolError } from "../../core/errors.js";
import { htmlToText } from "../../net/html-to-text.js";
import { httpRequest, statusError } from "../../net/http-client.js";
import type { SearchProvider, SearchResult } from "./search-provider.js";

export const BRAVE_DEFAULT_BASE_URL = "https://api.search.brave.com";
const BRAVE_TIMEOUT_MS = 30_000;
/** An API answer is small; anything near this is not a search result page. */
const BRAVE_MAX_BYTES = 4 * 1024 * 1024;

/** The part of Brave's WebSearchApiResponse the tool reads; the rest is ignored. */
const BraveResponse = z.looseObject({
  web: z
    .looseObject({
      results: z
        .array(
          z.looseObject({
            title: z.string().default(""),
            url: z.string(),
            description: z.string().default(""),
          }),
        )
        .default([]),
    })
    .optional(),
});

/** Brave's error body: `{ "type": "ErrorResponse", "error": { "code", "detail", "status" } }`. */
function braveErrorDetail(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { detail?: unknown; code?: unknown } };
    const detail = body.error?.detail ?? body.error?.code;
    return typeof detail === "string" ? `Brave says: ${detail}` : "";
  } catch {
    return "";
  }
}

/** Brave's snippets carry <strong> highlights and entities; the model wants plain text. */
function plain(text: string): string {
  return /[<&]/.test(text) ? htmlToText(text, { links: false }).replace(/\s+/g, " ").trim() : text.trim();
}

export interface BraveOptions {
  apiKey: string;
  /** Default https://api.search.brave.com; tests point it at a local fake. */
  baseUrl?: string;
}

/** spec 000's BraveSearchProvider: GET /res/v1/web/search with the X-Subscription-Token header. */
export class BraveSearchProvider implements SearchProvider {
  readonly name = "Brave";
  readonly #apiKey: string;
  readonly #baseUrl: string;

  constructor(options: BraveOptions) {
    this.#apiKey = options.apiKey;
    this.#baseUrl = (options.baseUrl ?? BRAVE_DEFAULT_BASE_URL).replace(/\/+$/, "");
  }

  async search(query: string, count: number, signal: AbortSignal): Promise<SearchResult[]> {
    const url = new URL(`${this.#baseUrl}/res/v1/web/search`);
    url.searchParams.set("q", query);
    url.searchParams.set("count", String(count));
    const res = await httpRequest({
      url: url.href,
      headers: { accept: "application/json", "accept-encoding": "gzip", "x-subscription-token": this.#apiKey },
      timeoutMs: BRAVE_TIMEOUT_MS,
      maxBytes: BRAVE_MAX_BYTES,
      // The base URL comes from configuration, not from the model.
      allowPrivateNetwork: true,
      signal,
    });
    const text = res.body.toString("utf8");
    if (res.status !== 200) {
      const detail = braveErrorDetail(text);
      if (res.status === 401 || res.status === 403) {
        throw new ToolError(
          "PERMISSION_DENIED",
          `Brave Search refused the API key (HTTP ${res.status}). Check BRAVE_API_KEY.${detail ? ` ${detail}` : ""}`,
          { recoverable: false },
        );
      }
      throw statusError("Brave Search", res.status, res.headers, detail);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ToolError(
        "UNAVAILABLE",
        `Brave Search sent a response that is not JSON (${text.slice(0, 120).replace(/\s+/g, " ")}...). Try again later.`,
      );
    }
    const parsed = BraveResponse.safeParse(json);
    if (!parsed.success) {
      throw new ToolError(
        "EXECUTION_ERROR",
        "Brave Search's response does not have the documented shape (web.results[] with title, url, description).",
        { recoverable: false },
      );
    }
    return (parsed.data.web?.results ?? [])
      .slice(0, count)
      .map((r) => ({ title: plain(r.title), url: r.url, description: plain(r.description) }));
  }
}
