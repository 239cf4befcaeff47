import { ToolError } from "../../core/errors.js";
import { parseRetryAfter } from "../../net/retry-after.js";

/** The Admin API's error body: `{ type: "error", error: { type, message } }`. */
function errorMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { type?: unknown; message?: unknown } };
    const e = parsed?.error;
    if (e && typeof e.message === "string") return typeof e.type === "string" ? `${e.type}: ${e.message}` : e.message;
  } catch {
    // not JSON: fall through to the raw text
  }
  const text = body.replace(/\s+/g, " ").trim();
  return text ? text.slice(0, 300) : undefined;
}

/** Turns a failed Admin API response into an error whose message tells the model what to do. */
export function anthropicApiError(status: number, retryAfter: string | null, body: string): ToolError {
  const said = errorMessage(body);
  const detail = said ? ` (${said})` : "";
  if (status === 401) {
    return new ToolError(
      "PERMISSION_DENIED",
      `The Anthropic Admin API rejected the key (HTTP 401${detail}). ANTHROPIC_ADMIN_API_KEY must be ` +
        `a valid Admin API key (sk-ant-admin...); ask the user to check it. Retrying will not help.`,
    );
  }
  if (status === 403) {
    return new ToolError(
      "PERMISSION_DENIED",
      `The Anthropic Admin API refused access (HTTP 403${detail}). The key lacks permission for this report; ask the user. Retrying will not help.`,
    );
  }
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(retryAfter);
    const wait = retryAfterMs !== undefined ? ` Retry after ${Math.ceil(retryAfterMs / 1000)} s.` : " Wait before retrying.";
    return new ToolError("RATE_LIMITED", `The Anthropic Admin API is rate limiting requests (HTTP 429${detail}).${wait}`, {
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
  }
  if (status >= 500) {
    const retryAfterMs = parseRetryAfter(retryAfter);
    return new ToolError("UNAVAILABLE", `The Anthropic Admin API is unavailable (HTTP ${status}${detail}). Try again later.`, {
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
  }
  if (status === 400 || status === 422) {
    return new ToolError("INVALID_ARGS", `The Anthropic Admin API refused the request (HTTP ${status}${detail}). Fix the arguments.`);
  }
  return new ToolError("EXECUTION_ERROR", `The Anthropic Admin API answered HTTP ${status}${detail}.`);
}
