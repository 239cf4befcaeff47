import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/*
 * The one set of checks tackle's local HTTP servers (the dashboard's `tackle serve`, MCP's
 * `tackle mcp --http`) apply to every request before anything else sees it: the Host header
 * (DNS rebinding: a web page that resolves its own name to 127.0.0.1 names itself), the Origin
 * (a page in the person's browser), and the bearer token (another local user, or a machine that
 * reaches a wider bind).
 */

const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"]);
const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Loopback addresses and the name that resolves to them. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === "::ffff:127.0.0.1";
}

/** How a server is to listen, checked before anything is bound. */
export interface ListenOptions {
  host: string;
  port: number;
  token?: string | undefined;
}

/**
 * Throws when the options cannot be served safely or at all: a bad port, a token that cannot
 * travel in a header, or a bind beyond this machine without a token, which would hand every tool
 * (and every approval) to anyone who can reach the port. `names` are what errors call things.
 */
export function assertListenOptions(options: ListenOptions, names: { portFlag: string; what: string; tokenEnv: string }): void {
  const { portFlag, what, tokenEnv } = names;
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new Error(`${portFlag} needs a port between 0 and 65535, not ${String(options.port)}.`);
  }
  if (options.token !== undefined && !/^[\x21-\x7e]+$/.test(options.token)) {
    throw new Error("The bearer token must be non-empty printable ASCII without spaces.");
  }
  if (!isLoopbackHost(options.host) && !options.token) {
    throw new Error(
      `Refusing to serve ${what} on ${options.host} without a bearer token: any machine that reaches it could run ` +
        `tackle's tools. Pass --token <secret> (or set ${tokenEnv}), or bind 127.0.0.1.`,
    );
  }
}

export interface GuardOptions {
  /** The address bound. */
  host: string;
  /** The port bound (known once listening): an Origin must name it. */
  port: () => number;
  token?: string;
  /** Further names the server answers to (behind a reverse proxy), as Host and as Origin, any port. */
  allowedHosts?: readonly string[];
  /** Which requests need the token (default: all). */
  needsToken?: (url: URL) => boolean;
  /** Where a client that cannot send headers (EventSource) may put the token in the query instead. */
  tokenInQuery?: (url: URL) => boolean;
}

/** Why a request is turned away. */
export interface Refusal {
  status: 401 | 403;
  error: string;
}

/** The checks for every request; undefined lets it through. */
export function requestGuard(options: GuardOptions): (req: IncomingMessage, url: URL) => Refusal | undefined {
  const bound = bracket(options.host);
  const wildcard = WILDCARD_HOSTS.has(options.host);
  const extra = new Set((options.allowedHosts ?? []).map((h) => bracket(h)));
  const isToken = options.token ? tokenCheck(options.token) : undefined;
  // A wildcard bind answers to names we cannot know; the token protects it instead.
  const nameAllowed = (name: string) => LOOPBACK_NAMES.has(name) || name === bound || extra.has(name) || (wildcard && extra.size === 0);

  return (req, url) => {
    const host = hostOf(req.headers.host);
    if (!host || !nameAllowed(host.hostname)) {
      return {
        status: 403,
        error: `Host ${JSON.stringify(req.headers.host ?? "")} is not this server; use http://127.0.0.1:${options.port()}.`,
      };
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const parsed = parseOrigin(origin);
      const allowed = parsed && (extra.has(parsed.hostname) || (nameAllowed(parsed.hostname) && parsed.port === String(options.port())));
      if (!allowed) return { status: 403, error: `Cross-origin requests are refused (Origin ${JSON.stringify(origin)}).` };
    }
    if (isToken && (options.needsToken?.(url) ?? true)) {
      const header = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
      const query = options.tokenInQuery?.(url) ? (url.searchParams.get("token") ?? undefined) : undefined;
      const given = header ?? query;
      if (given === undefined || !isToken(given)) {
        return { status: 401, error: "Unauthorized: send Authorization: Bearer <token>." };
      }
    }
    return undefined;
  };
}

/**
 * Whether a string is the token, in time that depends on the string's length alone: it is copied
 * into a buffer of the token's length (cut or zero-filled) and both comparisons always run, so
 * neither the token's bytes nor where a guess first differs show in the timing. (Hashing both
 * sides did the same at ~10 µs a request.)
 */
function tokenCheck(token: string): (given: string) => boolean {
  const expected = Buffer.from(token, "utf8");
  return (given) => {
    const candidate = Buffer.alloc(expected.length);
    candidate.write(given, "utf8");
    const sameBytes = timingSafeEqual(candidate, expected);
    const sameLength = Buffer.byteLength(given, "utf8") === expected.length;
    return sameBytes && sameLength;
  };
}

/** The last Host header and what it names: clients send the same one with every request. */
let lastHost: { header: string; host: { hostname: string } | undefined } | undefined;

function hostOf(header: string | undefined): { hostname: string } | undefined {
  if (header !== undefined && lastHost?.header === header) return lastHost.host;
  const host = parseHost(header);
  if (header !== undefined) lastHost = { header, host };
  return host;
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
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
    return { hostname: u.hostname.toLowerCase(), port: u.port || (u.protocol === "https:" ? "443" : "80") };
  } catch {
    return undefined;
  }
}

function bracket(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host.toLowerCase()}]` : host.toLowerCase();
}
