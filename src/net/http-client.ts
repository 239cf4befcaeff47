import { isIP } from "node:net";
import { pipeline, type Readable, type Transform } from "node:stream";
import { lazyRequire } from "../process/lazy-require.js";
// Loaded by the first compressed response, not by every run that lists the web tools.
const zlib = lazyRequire<typeof import("node:zlib")>("node:zlib");

const undici = lazyRequire<typeof import("undici")>("undici");
import { parseRetryAfter } from "./retry-after.js";
import { ToolError } from "../core/errors.js";
import { addressPolicy, BlockedAddressError, guardedLookup, type PrivateNetworkAllowance } from "./address-guard.js";

/** A Chrome-like User-Agent: many sites answer scripts' default agents with a block page. */
export const BROWSER_USER_AGENT =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/** Spec 000's limits for one fetch. */
export const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_REDIRECTS = 5;

/** Headers a caller may not set: they describe the connection, which the client owns. */
export const FORBIDDEN_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "proxy-authorization",
  "proxy-connection",
]);

/** Credentials that must not follow a redirect to another origin. */
const CROSS_ORIGIN_DROPPED = ["authorization", "cookie", "proxy-authorization"];

export interface HttpRequest {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** The whole exchange, redirects included, must finish within this. */
  timeoutMs?: number;
  /** Read at most this many (decoded) bytes of the final body; the rest is not downloaded. */
  maxBytes?: number;
  maxRedirects?: number;
  /**
   * Let the request reach private, loopback and link-local addresses (all, or the listed ones).
   * Off for URLs a model chose; on for base URLs from configuration (tests use 127.0.0.1).
   */
  allowPrivateNetwork?: PrivateNetworkAllowance;
  signal?: AbortSignal;
  /** Called before each redirect is followed; throw to refuse it. */
  onRedirect?: (next: URL, from: URL) => void;
  /** Told how much of the final body has arrived (decoded bytes), and its size when the server said. */
  onBody?: (received: number, total: number | undefined) => void;
}

export interface HttpResponse {
  /** The URL asked for. */
  url: string;
  /** The URL that answered, after redirects. */
  finalUrl: string;
  /** Every URL redirected to, in order. */
  redirects: string[];
  status: number;
  /** Response headers, lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The body was longer than maxBytes and was cut there. */
  truncated: boolean;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Whether a host is an IP literal that policy forbids. Names are checked when they resolve. */
function assertHostAllowed(url: URL, refused: (address: string) => boolean): void {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) && refused(host)) throw blockedError(new BlockedAddressError(host, host), url);
}

function blockedError(err: BlockedAddressError, url: URL): ToolError {
  return new ToolError(
    "PERMISSION_DENIED",
    `Refused to fetch ${url.href}: ${err.message}. Only public internet addresses may be fetched ` +
      `(configuration "web": { "allowPrivateNetwork": true } lifts this for trusted setups).`,
    { recoverable: false },
  );
}

/** Parses and checks a URL a request may go to: http or https only, no credentials in it. */
export function checkUrl(text: string, base?: string): URL {
  let url: URL;
  try {
    url = base === undefined ? new URL(text) : new URL(text, base);
  } catch {
    throw new ToolError("INVALID_ARGS", `"${text}" is not a valid absolute URL; give one such as https://example.com/page.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolError(
      "INVALID_ARGS",
      `Only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, "")}: (${url.href.slice(0, 200)}).`,
      { recoverable: false },
    );
  }
  return url;
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function findCause<T>(err: unknown, test: (e: unknown) => e is T): T | undefined {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (test(e)) return e;
    if (e instanceof AggregateError) {
      for (const inner of e.errors) {
        const found = findCause(inner, test);
        if (found) return found;
      }
    }
  }
  return undefined;
}

const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"]);
const PERMANENT_CODES = new Set([
  "ENOTFOUND",
  "ERR_INVALID_URL",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "CERT_HAS_EXPIRED",
  "UND_ERR_INVALID_ARG",
]);

/** Turns what undici or the socket threw into a ToolError the model can act on. */
function networkError(err: unknown, url: URL, timeoutMs: number, timedOut: boolean): ToolError {
  if (err instanceof ToolError) return err;
  const blocked = findCause(err, (e): e is BlockedAddressError => e instanceof BlockedAddressError);
  if (blocked) return blockedError(blocked, url);
  const codes: string[] = [];
  findCause(err, (e): e is never => {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    return false;
  });
  if (timedOut || codes.some((c) => TIMEOUT_CODES.has(c))) {
    // The whole exchange had its time: trying again within the same call would only double the wait.
    return new ToolError(
      "TIMEOUT",
      `${url.host} did not answer within ${Math.round(timeoutMs / 100) / 10} s. Try again later, or a different source.`,
      { recoverable: false },
    );
  }
  const detail = findCause(err, (e): e is Error => e instanceof Error && e.message !== "fetch failed")?.message ?? String(err);
  const code = codes[0];
  if (code === "ENOTFOUND") {
    return new ToolError("NETWORK_ERROR", `The host ${url.hostname} was not found (DNS). Check the URL for typos.`, { recoverable: false });
  }
  if (code === "ECONNREFUSED") {
    return new ToolError("NETWORK_ERROR", `${url.host} refused the connection. The site may be down; try again later.`);
  }
  const permanent = codes.some((c) => PERMANENT_CODES.has(c) || c.startsWith("ERR_TLS") || c.startsWith("CERT_"));
  return new ToolError("NETWORK_ERROR", `Could not fetch ${url.href}: ${detail}${code ? ` (${code})` : ""}.`, { recoverable: !permanent });
}

function decoder(encoding: string | undefined): Transform | undefined {
  switch ((encoding ?? "").trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return zlib().createGunzip();
    case "deflate":
      return zlib().createInflate();
    case "br":
      return zlib().createBrotliDecompress();
    default:
      return undefined;
  }
}

/**
 * Decompresses per Content-Encoding; the cap applies to the decoded bytes (a zip bomb stops there).
 * `pipeline` joins the two streams' errors and teardown: with `pipe`, stopping the download made
 * the response body emit an error nobody listened to, and that took the whole process down.
 */
function decoded(body: Readable, encoding: string | undefined): Readable {
  const transform = decoder(encoding);
  if (!transform) return body;
  return pipeline(body, transform, () => {
    // Errors reach the reader through the transform; nothing more to do here.
  });
}

/** Reads a body up to `max` bytes, then stops reading (and stops the download). */
async function readCapped(
  body: Readable,
  encoding: string | undefined,
  max: number,
  onChunk?: (received: number) => void,
): Promise<{ body: Buffer; truncated: boolean }> {
  const stream = decoded(body, encoding);
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of stream) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      if (size + buf.length > max) {
        chunks.push(buf.subarray(0, max - size));
        size = max;
        truncated = true;
        break;
      }
      chunks.push(buf);
      size += buf.length;
      onChunk?.(size);
    }
  } finally {
    if (truncated) {
      stream.destroy();
      body.destroy();
    }
  }
  return { body: Buffer.concat(chunks, size), truncated };
}

/**
 * One HTTP exchange with spec 000's limits: redirects followed by hand (at most `maxRedirects`,
 * each hop's scheme and address checked), a deadline over the whole exchange, the body read up
 * to `maxBytes`, and, unless allowed, no private, loopback or link-local addresses, checked after
 * DNS resolution on the very connection used.
 */
export async function httpRequest(req: HttpRequest): Promise<HttpResponse> {
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = req.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = req.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const refused = addressPolicy(req.allowPrivateNetwork ?? false);
  const first = checkUrl(req.url);

  const deadline = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    deadline.abort(new Error("deadline"));
  }, timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, deadline.signal]) : deadline.signal;
  // One agent per exchange: its lookup carries this call's policy, and no pooled socket outlives it.
  const { Agent, request } = undici();
  const agent = new Agent({
    connect: { lookup: guardedLookup(refused), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  let url = first;
  let method: "GET" | "POST" = req.method ?? "GET";
  let body = req.body;
  let headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = value;
  const redirects: string[] = [];
  try {
    for (;;) {
      assertHostAllowed(url, refused);
      let res;
      try {
        res = await request(url, {
          method,
          headers,
          ...(body !== undefined && method === "POST" ? { body } : {}),
          dispatcher: agent,
          signal,
          maxRedirections: 0,
        });
      } catch (err) {
        if (req.signal?.aborted) throw req.signal.reason;
        throw networkError(err, url, timeoutMs, timedOut);
      }
      const resHeaders = flattenHeaders(res.headers);
      const location = resHeaders.location;
      if (REDIRECTS.has(res.statusCode) && location) {
        await res.body.dump().catch(() => undefined);
        if (redirects.length >= maxRedirects) {
          throw new ToolError(
            "EXECUTION_ERROR",
            `Too many redirects: more than ${maxRedirects} starting from ${first.href} (the last hops: ` +
              `${[...redirects.slice(-3), location.slice(0, 200)].join(" -> ")}). The page may redirect in a loop.`,
            { recoverable: false },
          );
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new ToolError("EXECUTION_ERROR", `${url.href} redirected to an invalid URL: ${location.slice(0, 200)}`, {
            recoverable: false,
          });
        }
        if (next.protocol !== "http:" && next.protocol !== "https:") {
          throw new ToolError(
            "PERMISSION_DENIED",
            `${url.href} redirected to ${next.protocol} (${next.href.slice(0, 200)}); only http and https are followed.`,
            { recoverable: false },
          );
        }
        req.onRedirect?.(next, url);
        const keepsBody = (res.statusCode === 307 || res.statusCode === 308) && method === "POST";
        if (keepsBody && next.origin !== url.origin) {
          // The person approved sending this body to one site, not to wherever that site points.
          throw new ToolError(
            "EXECUTION_ERROR",
            `${url.href} redirected the POST (${res.statusCode}) to another site, ${next.href.slice(0, 200)}; ` +
              `the body was not sent there. Call again with that URL if it should be.`,
            { recoverable: false },
          );
        }
        if (next.origin !== url.origin) {
          headers = Object.fromEntries(Object.entries(headers).filter(([n]) => !CROSS_ORIGIN_DROPPED.includes(n)));
        }
        // Browsers turn POST into GET after 301/302/303; 307 and 308 keep the method and body.
        if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
          delete headers["content-type"];
        }
        redirects.push(next.href);
        url = next;
        continue;
      }
      let read;
      try {
        // Content-Length counts the encoded bytes: a total only when the body is not compressed.
        const declared = resHeaders["content-encoding"] ? undefined : Number(resHeaders["content-length"]) || undefined;
        read = await readCapped(res.body, resHeaders["content-encoding"], maxBytes, req.onBody && ((n) => req.onBody!(n, declared)));
      } catch (err) {
        if (req.signal?.aborted) throw req.signal.reason;
        throw networkError(err, url, timeoutMs, timedOut);
      }
      return {
        url: first.href,
        finalUrl: url.href,
        redirects,
        status: res.statusCode,
        headers: resHeaders,
        body: read.body,
        truncated: read.truncated,
      };
    }
  } finally {
    clearTimeout(timer);
    agent.destroy().catch(() => undefined);
  }
}

/** Longest Retry-After the runner waits out by itself; beyond it the model is told to come back later. */
export const MAX_AUTOMATIC_RETRY_AFTER_MS = 30_000;

/**
 * The error an HTTP status means, for services whose failures are errors (APIs, LinkedIn):
 * 429 → RATE_LIMITED with the server's Retry-After, 5xx → UNAVAILABLE, 401/403 →
 * PERMISSION_DENIED. `retryable` false (a POST) makes none of them recoverable.
 */
export function statusError(service: string, status: number, headers: Record<string, string>, detail: string, retryable = true): ToolError {
  const suffix = detail ? ` ${detail}` : "";
  if (status === 429) {
    const wait = parseRetryAfter(headers["retry-after"]);
    const when = wait === undefined ? "Wait a little before trying again." : `The server asks to wait ${Math.ceil(wait / 1000)} s.`;
    return new ToolError("RATE_LIMITED", `${service} answered 429 Too Many Requests. ${when}${suffix}`, {
      recoverable: retryable && (wait === undefined || wait <= MAX_AUTOMATIC_RETRY_AFTER_MS),
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    });
  }
  if (status === 401) {
    return new ToolError(
      "PERMISSION_DENIED",
      `${service} answered 401 Unauthorized: the credentials were missing or not accepted.${suffix}`,
      { recoverable: false },
    );
  }
  if (status === 403) {
    return new ToolError("PERMISSION_DENIED", `${service} answered 403 Forbidden: access is refused.${suffix}`, { recoverable: false });
  }
  if (status >= 500) {
    const transient = status === 500 || status === 502 || status === 503 || status === 504;
    return new ToolError(
      "UNAVAILABLE",
      `${service} answered ${status}: the server failed. ${transient ? "Try again later." : ""}${suffix}`.trim(),
      {
        recoverable: retryable && transient,
        ...(headers["retry-after"] ? { retryAfterMs: parseRetryAfter(headers["retry-after"]) ?? 0 } : {}),
      },
    );
  }
  return new ToolError("EXECUTION_ERROR", `${service} answered HTTP ${status}.${suffix}`, { recoverable: false });
}
