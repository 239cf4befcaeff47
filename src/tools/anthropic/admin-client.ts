import { ToolError } from "../../core/errors.js";
import { anthropicApiError } from "./api-error.js";

/** The API version header every Admin API request carries. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** Largest response body read; a report page is far smaller. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface AdminClientOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

/** A minimal Anthropic Admin API client: authenticated GETs returning parsed JSON. */
export class AnthropicAdminClient {
  readonly #options: AdminClientOptions;

  constructor(options: AdminClientOptions) {
    this.#options = options;
  }

  /** The URL of `path` (which starts with /v1/...) under the configured base, keeping any base path. */
  url(path: string, query: URLSearchParams): URL {
    const base = this.#options.baseUrl.endsWith("/") ? this.#options.baseUrl : `${this.#options.baseUrl}/`;
    const url = new URL(path.replace(/^\//, ""), base);
    url.search = query.toString();
    return url;
  }

  /** GETs `path` and returns the JSON body; failures become ToolErrors with a clear next step. */
  async get(path: string, query: URLSearchParams, signal: AbortSignal): Promise<unknown> {
    const url = this.url(path, query);
    const timeout = AbortSignal.timeout(this.#options.timeoutMs);
    const combined = AbortSignal.any([signal, timeout]);
    let response: Response;
    let body: string;
    try {
      response = await fetch(url, {
        method: "GET",
        headers: {
          "x-api-key": this.#options.apiKey,
          "anthropic-version": ANTHROPIC_VERSION,
          accept: "application/json",
          "user-agent": "tackle/0.1 (anthropic_usage)",
        },
        signal: combined,
        redirect: "error",
      });
      body = await readCapped(response);
    } catch (err) {
      throw this.#transportError(err, signal, timeout);
    }
    if (!response.ok) throw anthropicApiError(response.status, response.headers.get("retry-after"), body);
    try {
      return JSON.parse(body) as unknown;
    } catch {
      throw malformed(`the body is not JSON (starts with ${JSON.stringify(body.slice(0, 80))})`);
    }
  }

  #transportError(err: unknown, signal: AbortSignal, timeout: AbortSignal): ToolError {
    if (err instanceof ToolError) return err;
    if (signal.aborted) return new ToolError("CANCELLED", "The request to the Anthropic Admin API was cancelled.", { cause: err });
    if (timeout.aborted) {
      return new ToolError(
        "TIMEOUT",
        `The Anthropic Admin API did not answer within ${this.#options.timeoutMs / 1000} s. Try again, or ask for a shorter range.`,
        {
          cause: err,
        },
      );
    }
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (err as Error).message;
    return new ToolError("NETWORK_ERROR", `Could not reach the Anthropic Admin API at ${this.#options.baseUrl} (${why}).`, { cause: err });
  }
}

/** A response that is not the documented shape: say so rather than report nonsense. */
export function malformed(why: string): ToolError {
  return new ToolError(
    "EXECUTION_ERROR",
    `The Anthropic Admin API returned an unexpected response: ${why}. Try again later; if it persists the API may have changed.`,
  );
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw malformed(`the body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
