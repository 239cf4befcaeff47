import { ToolError } from "../../core/errors.js";
import { BROWSER_USER_AGENT, httpRequest, statusError } from "../../net/http-client.js";
import { decodeBody, parseContentType } from "../../net/charset.js";

export const LINKEDIN_DEFAULT_BASE_URL = "https://www.linkedin.com";
const TIMEOUT_MS = 30_000;
const MAX_BYTES = 4 * 1024 * 1024;

/**
 * GETs one of LinkedIn's public guest pages and returns its HTML, turning LinkedIn's ways of
 * saying no (429, its bot-block status 999, a redirect to the sign-in wall) into clear errors.
 */
export async function fetchGuestPage(url: string, what: string, signal: AbortSignal): Promise<string> {
  const res = await httpRequest({
    url,
    headers: {
      "user-agent": BROWSER_USER_AGENT,
      accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8",
      "accept-language": "en-US,en;q=0.9",
      "accept-encoding": "gzip, deflate, br",
    },
    timeoutMs: TIMEOUT_MS,
    maxBytes: MAX_BYTES,
    // The base URL comes from configuration, not from the model.
    allowPrivateNetwork: true,
    signal,
  });
  const finalPath = new URL(res.finalUrl).pathname;
  if (/^\/(authwall|login|checkpoint|uas\/login)/.test(finalPath)) {
    throw new ToolError(
      "PERMISSION_DENIED",
      `LinkedIn asked to sign in instead of showing the ${what} (redirected to ${finalPath}). Guest access is limited; try again later.`,
      {
        recoverable: false,
      },
    );
  }
  if (res.status === 999) {
    throw new ToolError(
      "RATE_LIMITED",
      `LinkedIn refused the request (status 999, its block for automated traffic). Wait a while before trying again.`,
      {
        recoverable: false,
      },
    );
  }
  if (res.status === 404 || res.status === 410) {
    throw new ToolError("EXECUTION_ERROR", `LinkedIn has no ${what} (HTTP ${res.status}); it may have been removed or the id is wrong.`, {
      recoverable: false,
    });
  }
  if (res.status !== 200) throw statusError("LinkedIn", res.status, res.headers, "");
  return decodeBody(res.body, parseContentType(res.headers["content-type"] ?? "text/html")).text;
}
