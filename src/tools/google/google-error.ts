import { ToolError, toToolError } from "../../core/errors.js";
import { parseRetryAfter } from "../../net/retry-after.js";

/** The parts of a gaxios error this module reads (gaxios 6 and 7 differ in how headers look). */
interface HttpFailure {
  status?: number;
  code?: string | number;
  name?: string;
  message?: string;
  config?: { url?: unknown };
  response?: { status?: number; headers?: unknown; data?: unknown };
}

/** The HTTP status of a failed Google request, if it got that far. */
export function httpStatus(err: unknown): number | undefined {
  const e = err as HttpFailure | undefined;
  const status = e?.response?.status ?? e?.status;
  return typeof status === "number" ? status : undefined;
}

function header(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, unknown>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key ? record[key] : undefined;
  return typeof value === "string" ? value : undefined;
}

/** Google's JSON error: `{ error: { code, message, status, errors: [{ reason, message }] } }`. */
function googleReason(data: unknown): { message?: string; reasons: string[] } {
  if (typeof data === "string") {
    try {
      return googleReason(JSON.parse(data));
    } catch {
      const text = data.replace(/\s+/g, " ").trim();
      return { ...(text ? { message: text.slice(0, 200) } : {}), reasons: [] };
    }
  }
  const error = (data as { error?: unknown } | undefined)?.error;
  if (error && typeof error === "object") {
    const e = error as { message?: unknown; status?: unknown; errors?: Array<{ reason?: unknown }> };
    const reasons = Array.isArray(e.errors) ? e.errors.map((x) => String(x?.reason ?? "")).filter(Boolean) : [];
    if (typeof e.status === "string") reasons.push(e.status);
    return { ...(typeof e.message === "string" ? { message: e.message } : {}), reasons };
  }
  // The OAuth token endpoint: `{ error: "invalid_grant", error_description }`.
  if (typeof error === "string") {
    const description = (data as { error_description?: unknown }).error_description;
    return { message: typeof description === "string" ? `${error}: ${description}` : error, reasons: [error] };
  }
  return { reasons: [] };
}

const RATE_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded", "RESOURCE_EXHAUSTED", "quotaExceeded"]);

/**
 * Turns a failed Google API call into a ToolError whose message says what to do next.
 * `service` names the API ("Gmail", "Google Calendar"); `signal` tells cancellation from timeout.
 */
export function googleApiError(err: unknown, service: string, signal?: AbortSignal): ToolError {
  if (err instanceof ToolError) return err;
  const e = err as HttpFailure;
  const status = httpStatus(err);
  if (status === undefined) {
    if (signal?.aborted) return new ToolError("CANCELLED", `The ${service} request was cancelled.`, { cause: err });
    const code = String(e?.code ?? e?.name ?? "");
    const cause = (err as { cause?: { name?: string } })?.cause?.name;
    // gaxios aborts a request at its time limit; when our own signal did not fire, that is what happened.
    const aborted = cause === "AbortError" || cause === "TimeoutError" || /operation was aborted/i.test(e?.message ?? "");
    if (aborted || code === "TimeoutError" || code === "ETIMEDOUT" || /timeout/i.test(e?.message ?? "")) {
      return new ToolError("TIMEOUT", `${service} did not answer in time. Try again.`, { cause: err });
    }
    if (
      ["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_SOCKET"].includes(code) ||
      /fetch failed/i.test(e?.message ?? "")
    ) {
      return new ToolError("NETWORK_ERROR", `Could not reach ${service} (${code || e?.message}).`, { cause: err });
    }
    return toToolError(err);
  }
  const { message, reasons } = googleReason(e.response?.data);
  const detail = message ? `: ${message}` : "";
  const retryAfterMs = parseRetryAfter(header(e.response?.headers, "retry-after"));
  const wait = retryAfterMs !== undefined ? { retryAfterMs } : {};
  if (status === 429 || (status === 403 && reasons.some((r) => RATE_REASONS.has(r)))) {
    const when = retryAfterMs !== undefined ? ` Retry after ${Math.ceil(retryAfterMs / 1000)} s.` : " Wait before retrying.";
    return new ToolError("RATE_LIMITED", `${service} is rate limiting requests (HTTP ${status}${detail}).${when}`, wait);
  }
  if (status === 401) {
    return new ToolError(
      "PERMISSION_DENIED",
      `${service} rejected the sign-in (HTTP 401${detail}). The user must sign in to Google again; call the tool again to start it.`,
    );
  }
  if (status === 403) {
    return new ToolError(
      "PERMISSION_DENIED",
      `${service} refused access (HTTP 403${detail}). The signed-in account lacks permission for this; ask the user. Retrying will not help.`,
    );
  }
  if (status === 404) return new ToolError("EXECUTION_ERROR", `${service} found nothing there (HTTP 404${detail}). Check the id.`);
  if (status === 400) return new ToolError("INVALID_ARGS", `${service} refused the request (HTTP 400${detail}). Fix the arguments.`);
  if (status >= 500) return new ToolError("UNAVAILABLE", `${service} is unavailable (HTTP ${status}${detail}). Try again later.`, wait);
  return new ToolError("EXECUTION_ERROR", `${service} answered HTTP ${status}${detail}.`);
}

/** A response that is not the documented shape: say so rather than report nonsense. */
export function unexpectedResponse(service: string, what: string): ToolError {
  return new ToolError(
    "EXECUTION_ERROR",
    `${service} returned an unexpected response (${what}). Try again later; if it persists the API may have changed.`,
  );
}
