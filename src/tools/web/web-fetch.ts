import { z } from "zod";
import { lazyRequire } from "../../process/lazy-require.js";

const htmlParser = lazyRequire<typeof import("node-html-parser")>("node-html-parser");
// node:http only for its reason phrases: loading it at start-up costs every run that never fetches.
const http = lazyRequire<typeof import("node:http")>("node:http");
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError, type ErrorCode } from "../../core/errors.js";
import type { ToolExecutionResult } from "../../core/result.js";
import { markUntrusted } from "../../core/untrusted.js";
import { domainMatches } from "../../net/domain.js";
import { TOOL } from "../names.js";
import { decodeBody, isHtml, isJson, looksBinary, parseContentType } from "../../net/charset.js";
import type { WebConfig } from "./config.js";
import { htmlToText, normalizeWhitespace } from "../../net/html-to-text.js";
import {
  BROWSER_USER_AGENT,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TIMEOUT_MS,
  FORBIDDEN_REQUEST_HEADERS,
  httpRequest,
  statusError,
  type HttpResponse,
} from "../../net/http-client.js";
import { formatCount } from "../../core/format-count.js";

export const DEFAULT_MAX_CHARS = 50_000;
/** How much of an error page (a 404's body) the model sees. */
const ERROR_BODY_CHARS = 2_000;
/** Room kept beside the page text for the header and the notice, within the runner's cap. */
const HEADROOM_CHARS = 1_000;
/** How much more of a body must arrive before progress is reported again. */
const PROGRESS_STEP_BYTES = 256 * 1024;

const WebFetchInput = z
  .object({
    url: z.string().min(1).max(8_192).describe("The http or https URL to fetch."),
    maxChars: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .default(DEFAULT_MAX_CHARS)
      .describe("Most characters of page text to return (default 50,000); longer text is cut with a notice."),
    method: z
      .preprocess((v) => (typeof v === "string" ? v.toUpperCase() : v), z.enum(["GET", "POST"]))
      .default("GET")
      .describe("GET (default) or POST. POST asks the user for approval unless the domain is on the allowlist."),
    headers: z.record(z.string(), z.string()).optional().describe('Extra request headers, e.g. {"Accept": "application/json"}.'),
    body: z.string().max(1_000_000).optional().describe("Request body, for POST only."),
    timeout: z.number().positive().max(120).optional().describe("Seconds to wait for the whole response (default 30)."),
  })
  .strict()
  .superRefine((args, ctx) => {
    let url: URL | undefined;
    try {
      url = new URL(args.url);
    } catch {
      ctx.addIssue({
        code: "custom",
        path: ["url"],
        message: `"${args.url.slice(0, 200)}" is not an absolute URL; give one such as https://example.com/page`,
      });
    }
    if (url && url.protocol !== "http:" && url.protocol !== "https:") {
      ctx.addIssue({
        code: "custom",
        path: ["url"],
        message: `only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, "")}:`,
      });
    }
    if (args.body !== undefined && args.method !== "POST") {
      ctx.addIssue({ code: "custom", path: ["body"], message: "a body can only be sent with method POST" });
    }
    for (const name of Object.keys(args.headers ?? {})) {
      if (FORBIDDEN_REQUEST_HEADERS.has(name.toLowerCase()) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
        ctx.addIssue({ code: "custom", path: ["headers", name], message: `the header "${name}" cannot be set` });
      }
    }
    for (const [name, value] of Object.entries(args.headers ?? {})) {
      if (/[\r\n\0]/.test(value))
        ctx.addIssue({ code: "custom", path: ["headers", name], message: "header values cannot contain line breaks" });
    }
  });

type WebFetchArgs = z.output<typeof WebFetchInput>;

/** spec 003's result, plus where the page ended up and what it was. */
const WebFetchOutput = z.object({
  status: z.number(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
  url: z.string(),
  finalUrl: z.string(),
  contentType: z.string(),
  title: z.string().optional(),
  truncated: z.boolean(),
});

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return "";
  }
}

/** The page's <title>, looked for only before <body> so an inline SVG's title is not taken. */
function pageTitle(html: string): string | undefined {
  const end = html.search(/<body[\s>]/i);
  const head = html.slice(0, end === -1 ? 65_536 : Math.min(end, 262_144));
  const title = htmlParser().parse(head).querySelector("title")?.text;
  const clean = title?.replace(/\s+/g, " ").trim();
  return clean ? clean : undefined;
}

interface Extracted {
  text: string;
  contentType: string;
  title?: string;
  note?: string;
}

/** Turns a body into what the model reads: HTML as text, JSON pretty-printed, text as is, binary described. */
export function extractContent(res: Pick<HttpResponse, "headers" | "body" | "finalUrl">): Extracted {
  const header = res.headers["content-type"] ?? "";
  const media = parseContentType(header);
  if (res.body.length === 0) return { text: "", contentType: header };
  const sniffedHtml = media.type === "" && /^\s*(<!doctype html|<html[\s>])/i.test(res.body.subarray(0, 512).toString("latin1"));
  if (isHtml(media.type) || sniffedHtml) {
    const { text: html } = decodeBody(res.body, media);
    const title = pageTitle(html);
    return { text: htmlToText(html, { baseUrl: res.finalUrl }), contentType: header || "text/html", ...(title ? { title } : {}) };
  }
  const textual =
    isJson(media.type) ||
    media.type.startsWith("text/") ||
    /(xml|javascript|ecmascript|yaml|toml|csv|x-www-form-urlencoded|graphql)/.test(media.type) ||
    (media.type === "" && !looksBinary(res.body));
  if (!textual) {
    return {
      text: `[Binary content (${media.type || "unknown type"}, ${formatCount(res.body.length)} bytes) is not shown as text.]`,
      contentType: header,
    };
  }
  const { text } = decodeBody(res.body, media);
  if (isJson(media.type)) {
    try {
      return { text: JSON.stringify(JSON.parse(text), null, 2), contentType: header };
    } catch (err) {
      return {
        text,
        contentType: header,
        note: `The body is labelled JSON but is not valid JSON (${(err as Error).message}); shown as received.`,
      };
    }
  }
  return { text: media.type === "text/plain" ? text : normalizeLineEnds(text), contentType: header };
}

function normalizeLineEnds(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

function statusLine(status: number): string {
  const reason = http().STATUS_CODES[status];
  return reason ? `${status} ${reason}` : String(status);
}

function formatBytes(n: number): string {
  return `${formatCount(n)} bytes`;
}

/** spec 000's metadata header, `--- Content ---`, then the text (cut at maxChars with a notice). */
function render(
  args: WebFetchArgs,
  res: HttpResponse,
  extracted: Extracted,
  maxChars: number,
  outputLimit?: number,
): { content: string; body: string; cut: boolean } {
  const lines = [`URL: ${res.url}`];
  if (res.finalUrl !== res.url)
    lines.push(`Final URL: ${res.finalUrl} (after ${res.redirects.length} redirect${res.redirects.length === 1 ? "" : "s"})`);
  lines.push(`Status: ${statusLine(res.status)}`);
  lines.push(`Content-Type: ${extracted.contentType || "(none)"}`);
  if (extracted.title) lines.push(`Title: ${extracted.title}`);
  // Content-Length on the wire counts compressed bytes when the body was compressed: say both.
  const declared = Number(res.headers["content-length"]);
  const compressed = res.headers["content-encoding"] && Number.isFinite(declared) && res.headers["content-length"] !== undefined;
  let length = compressed
    ? `${formatBytes(res.body.length)} (${formatBytes(declared)} ${res.headers["content-encoding"]}-compressed on the wire)`
    : formatBytes(res.body.length);
  if (res.truncated) {
    length = `${formatBytes(res.body.length)} read; the download stopped at the ${DEFAULT_MAX_BYTES / 1024 / 1024} MB limit, so the page is incomplete`;
  }
  lines.push(`Content-Length: ${length}`);
  if (args.method === "POST") lines.unshift(`Method: POST`);
  if (extracted.note) lines.push(`Note: ${extracted.note}`);
  let body = extracted.text;
  let cut = false;
  // What the runner passes on is capped too: within that cap, the notice can say what was shown.
  const room = outputLimit !== undefined ? Math.max(1_000, outputLimit - lines.join("\n").length - HEADROOM_CHARS) : Infinity;
  const shown = Math.min(maxChars, room);
  if (body.length > shown) {
    const total = body.length;
    body = body.slice(0, shown);
    cut = true;
    const next =
      shown < maxChars
        ? `${formatCount(shown)} characters is the most this session passes on (its maxOutputChars), so a larger maxChars will not show more.`
        : "Call again with a larger maxChars to see more.";
    body += `\n\n[Content truncated: showing the first ${formatCount(shown)} of ${formatCount(total)} characters. ${next}]`;
  } else if (res.truncated) {
    body += `\n\n[Content truncated: the page is larger than ${DEFAULT_MAX_BYTES / 1024 / 1024} MB and only the first part was downloaded.]`;
  }
  return { content: `${lines.join("\n")}\n--- Content ---\n${body}`, body, cut };
}

/**
 * Whether a call asks a person (spec 000 and 001: GET never asks; spec 003: allowlisted domains
 * never ask). POST asks outside the allowlist; with `requireApprovalOutsideAllowlist` GET does too.
 */
function onAllowlist(config: WebConfig, host: string): boolean {
  return host !== "" && config.autoApproveDomains.some((d) => domainMatches(d, host));
}

export function fetchNeedsApproval(config: WebConfig, method: "GET" | "POST", url: string): boolean {
  if (onAllowlist(config, hostOf(url))) return false;
  if (method === "POST") return true;
  return config.requireApprovalOutsideAllowlist;
}

function redactHeaders(headers: Record<string, string> | undefined): string[] {
  return Object.entries(headers ?? {}).map(([name, value]) =>
    /^(authorization|cookie|x-api-key|proxy-authorization|x-subscription-token)$/i.test(name) ? `${name}: [hidden]` : `${name}: ${value}`,
  );
}

/** web_fetch: spec 000's WebFetchTool with spec 003's arguments and result. */
export function createWebFetchTool(config: WebConfig) {
  return defineTool({
    name: TOOL.webFetch,
    title: "Fetch a web page",
    description: loadDescription(import.meta.url, "web-fetch.txt"),
    input: WebFetchInput,
    output: WebFetchOutput,
    effect: "network",
    idempotent: true,
    needsApproval: (args) => fetchNeedsApproval(config, args.method, args.url),
    scope: { kind: "domain", subjects: (args) => [hostOf(args.url)].filter(Boolean) },
    describeCall: (args) => `Fetch ${args.url}`,
    timeoutMs: (args) => (args.timeout !== undefined ? args.timeout * 1000 : DEFAULT_TIMEOUT_MS) + 5_000,
    preview: (args) => {
      if (args.method !== "POST") return undefined;
      const body =
        args.body === undefined
          ? "(no body)"
          : args.body.length > 2_000
            ? `${args.body.slice(0, 2_000)}\n[... ${args.body.length - 2_000} more characters]`
            : args.body;
      return [`POST ${args.url}`, ...redactHeaders(args.headers), "", body].join("\n");
    },
    execute: async (args, ctx): Promise<ToolExecutionResult> => {
      let reported = 0;
      const retryable = args.method === "GET";
      const res = await httpRequest({
        url: args.url,
        method: args.method,
        headers: {
          "user-agent": BROWSER_USER_AGENT,
          accept: "text/html,application/xhtml+xml,application/xml;q=0.9,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5",
          "accept-language": "en-US,en;q=0.9",
          "accept-encoding": "gzip, deflate, br",
          ...(args.method === "POST" &&
          args.body !== undefined &&
          !Object.keys(args.headers ?? {}).some((h) => h.toLowerCase() === "content-type")
            ? { "content-type": "text/plain;charset=UTF-8" }
            : {}),
          ...args.headers,
        },
        ...(args.body !== undefined ? { body: args.body } : {}),
        timeoutMs: args.timeout !== undefined ? args.timeout * 1000 : DEFAULT_TIMEOUT_MS,
        maxBytes: DEFAULT_MAX_BYTES,
        maxRedirects: DEFAULT_MAX_REDIRECTS,
        allowPrivateNetwork: config.allowPrivateNetwork,
        signal: ctx.signal,
        onBody: (received, total) => {
          // A page arrives in one piece or two; only a download worth watching reports progress.
          if (received - reported < PROGRESS_STEP_BYTES && received !== total) return;
          reported = received;
          ctx.onProgress({
            progress: received,
            ...(total !== undefined ? { total } : {}),
            message: `downloaded ${formatCount(received)}${total !== undefined ? ` of ${formatCount(total)}` : ""} bytes`,
          });
        },
        onRedirect: (next) => {
          // In spec 003's strict mode, approval covered the URL asked for, not wherever it leads.
          const host = next.hostname.replace(/^\[|\]$/g, "");
          const denial = ctx.denied?.(host);
          if (denial) {
            throw new ToolError(
              "PERMISSION_DENIED",
              `${args.url} redirected to ${next.href.slice(0, 200)}, which is ${denial}; it was not followed.`,
              { recoverable: false },
            );
          }
          if (config.requireApprovalOutsideAllowlist && host !== hostOf(args.url) && !onAllowlist(config, host)) {
            throw new ToolError(
              "PERMISSION_DENIED",
              `${args.url} redirected to ${next.href.slice(0, 200)}, a domain outside ` +
                `web.autoApproveDomains; it was not followed. Call web_fetch with that URL to ask for approval.`,
              { recoverable: false },
            );
          }
        },
      });

      const extracted = extractContent(res);
      if (res.status === 429 || res.status >= 500) {
        const excerpt = normalizeWhitespace(extracted.text).slice(0, 500);
        throw statusError(
          `${hostOf(res.finalUrl)}`,
          res.status,
          res.headers,
          excerpt ? `The page said: ${JSON.stringify(excerpt)}` : "",
          retryable,
        );
      }
      const rendered = render(args, res, extracted, args.maxChars, ctx.outputLimit);
      const structured = {
        status: res.status,
        headers: res.headers,
        body: rendered.body,
        url: res.url,
        finalUrl: res.finalUrl,
        contentType: extracted.contentType,
        ...(extracted.title ? { title: extracted.title } : {}),
        truncated: rendered.cut || res.truncated,
      };
      const metadata = {
        status: res.status,
        finalUrl: res.finalUrl,
        redirects: res.redirects.length,
        bytes: res.body.length,
        truncated: structured.truncated,
      };

      if (res.status >= 400) {
        // An error page is still the web talking: cut short and marked, since the runner marks only successes.
        const code: ErrorCode = res.status === 401 || res.status === 403 ? "PERMISSION_DENIED" : "EXECUTION_ERROR";
        const advice =
          res.status === 401 || res.status === 403
            ? "The site refuses access without credentials; do not retry the same URL."
            : res.status === 404 || res.status === 410
              ? "The page does not exist; check the URL."
              : "The request was not accepted.";
        const excerpt =
          rendered.content.length > ERROR_BODY_CHARS ? `${rendered.content.slice(0, ERROR_BODY_CHARS)}\n[...]` : rendered.content;
        return {
          content: `HTTP ${statusLine(res.status)} from ${res.finalUrl}. ${advice}\n${markUntrusted(excerpt, res.finalUrl)}`,
          isError: true,
          errorCode: code,
          structured,
          metadata,
        };
      }
      return { content: rendered.content, structured, metadata, untrusted: { source: res.finalUrl } };
    },
  });
}
