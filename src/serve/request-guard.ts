import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isLoopbackHost } from "../mcp/server/http-guard.js";

const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"]);
const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);

export interface GuardOptions {
  /** The address bound. */
  host: string;
  /** The port bound (known once listening). */
  port: () => number;
  token?: string;
}

/** Why a request is turned away. */
export interface Refusal {
  status: 401 | 403;
  error: string;
}

/**
 * Checks serve options before anything is bound: serving beyond this machine without a token
 * would hand every tool (and every approval) to anyone who can reach the port.
 */
export function assertServeOptions(options: { host: string; port: number; token?: string | undefined }): void {
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new Error(`--port needs a port between 0 and 65535, not ${String(options.port)}.`);
  }
  if (options.token !== undefined && !/^[\x21-\x7e]+$/.test(options.token)) {
    throw new Error("The bearer token must be non-empty printable ASCII without spaces.");
  }
  if (!isLoopbackHost(options.host) && !options.token) {
    throw new Error(
      `Refusing to serve on ${options.host} without a token: any machine that reaches it could run tackle's ` +
        `tools and answer its approvals. Pass --token <secret> (or set TACKLE_SERVE_TOKEN), or bind 127.0.0.1.`,
    );
  }
}

/**
 * Host, Origin and token checks for every request: the Host header must name this server
 * (a DNS-rebinding page names its own), an Origin, when sent, must be this server's, and with a
 * token every /api request must carry it.
 */
export function requestGuard(options: GuardOptions): (req: IncomingMessage, url: URL) => Refusal | undefined {
  const bound = bracket(options.host);
  const wildcard = WILDCARD_HOSTS.has(options.host);
  const tokenHash = options.token ? sha256(options.token) : undefined;
  // A wildcard bind answers to names we cannot know; the token protects it instead.
  const nameAllowed = (name: string) => LOOPBACK_NAMES.has(name) || name === bound || wildcard;

  return (req, url) => {
    const host = parseHost(req.headers.host);
    if (!host || !nameAllowed(host.hostname)) {
      return {
        status: 403,
        error: `Host ${JSON.stringify(req.headers.host ?? "")} is not this server; use http://127.0.0.1:${options.port()}.`,
      };
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const parsed = parseOrigin(origin);
      if (!parsed || !nameAllowed(parsed.hostname) || parsed.port !== String(options.port())) {
        return { status: 403, error: `Cross-origin requests are refused (Origin ${JSON.stringify(origin)}).` };
      }
    }
    if (tokenHash && url.pathname.startsWith("/api/")) {
      const header = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
      // EventSource cannot send headers, so the event stream alone may carry the token in the query.
      const query = url.pathname === "/api/events" ? (url.searchParams.get("token") ?? undefined) : undefined;
      const given = header ?? query;
      if (given === undefined || !timingSafeEqual(sha256(given), tokenHash)) {
        return { status: 401, error: "Unauthorized: send Authorization: Bearer <token>." };
      }
    }
    return undefined;
  };
}

function parseHost(header: string | undefined): { hostname: string } | undefined {
  if (!header) return undefined;
  try {
    const u = new URL(`http://${header}`);
    if (u.username || u.password || u.pathname !== "/" || u.search) return undefined;
    return { hostname: u.hostname.toLowerCase() };
  } catch {
    return undefined;
  }
}

function parseOrigin(origin: string): { hostname: string; port: string } | undefined {
  try {
    const u = new URL(origin);
    if (u.protocol !== "http:") return undefined;
    return { hostname: u.hostname.toLowerCase(), port: u.port || "80" };
  } catch {
    return undefined;
  }
}

function bracket(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host.toLowerCase();
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
