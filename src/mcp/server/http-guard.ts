import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from "@modelcontextprotocol/server";
import { jsonRpcError } from "./web-bridge.js";

const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"]);

/** Loopback addresses and the name that resolves to them. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === "::ffff:127.0.0.1";
}

/**
 * The checks every request to the MCP endpoint passes before the protocol sees it: the Host and
 * Origin headers (DNS rebinding, cross-origin pages) and the bearer token. Returns the refusal,
 * or undefined to let the request through.
 */
export function httpGuard(options: {
  host: string;
  token?: string;
  allowedHosts?: string[];
}): (req: IncomingMessage) => Response | undefined {
  const loopback = isLoopbackHost(options.host);
  const extra = (options.allowedHosts ?? []).map((h) => h.toLowerCase());
  // A wildcard bind answers to names we cannot know; the token protects it instead.
  const checkHost = loopback || !WILDCARD_HOSTS.has(options.host) || extra.length > 0;
  const allowedHosts = [
    ...localhostAllowedHostnames(),
    ...extra,
    ...(loopback || WILDCARD_HOSTS.has(options.host) ? [] : [bracket(options.host)]),
  ];
  const tokenHash = options.token ? sha256(options.token) : undefined;

  return (req) => {
    // DNS rebinding: a web page that resolves its own name to this address must be turned away.
    const hostHeader = req.headers.host;
    if (checkHost) {
      const verdict = validateHostHeader(hostHeader, allowedHosts);
      if (!verdict.ok) return jsonRpcError(403, -32000, verdict.message);
    }
    const origin = req.headers.origin;
    if (origin) {
      const own = hostHeader ? safeHostname(hostHeader) : undefined;
      const allowedOrigins = [...localhostAllowedHostnames(), ...extra, ...(!loopback && own ? [own] : [])];
      const verdict = validateOriginHeader(origin, allowedOrigins);
      if (!verdict.ok) return jsonRpcError(403, -32000, verdict.message);
    }
    if (tokenHash && !bearerMatches(req.headers.authorization, tokenHash)) {
      const response = jsonRpcError(401, -32001, "Unauthorized: send Authorization: Bearer <token>.");
      response.headers.set("WWW-Authenticate", 'Bearer realm="tackle"');
      return response;
    }
    return undefined;
  };
}

function bracket(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host.toLowerCase();
}

function safeHostname(hostHeader: string): string | undefined {
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return undefined;
  }
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Compares hashes in constant time, so timing says nothing about the token. */
function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!match) return false;
  return timingSafeEqual(sha256(match[1]!), expected);
}
