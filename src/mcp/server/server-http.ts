import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import {
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isLegacyRequest,
  localhostAllowedHostnames,
  validateHostHeader,
  validateOriginHeader,
  type Server,
} from "@modelcontextprotocol/server";
import type { Logger } from "../../core/logger.js";
import type { ToolCallService } from "./server-calls.js";

export interface HttpServeOptions {
  port: number;
  /** Address to bind; default 127.0.0.1. Anything but loopback requires `token`. */
  host?: string;
  /** Bearer token every request must carry in `Authorization: Bearer <token>`. */
  token?: string;
  /** More host names clients may use in the Host and Origin headers (a reverse proxy's name). */
  allowedHosts?: string[];
  /** A 2025-era session with no request and no open stream for this long is closed. Default 30 minutes. */
  sessionIdleMs?: number;
}

export interface HttpServing {
  url: string;
  notifyToolsChanged(): void;
  close(): Promise<void>;
}

const MCP_PATH = "/mcp";
/** 2025-era sessions kept at once; more are refused until some close or expire. */
const MAX_SESSIONS = 1000;
const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

interface LegacySession {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
  /** Responses (streams) still being written for this session. */
  open: number;
}
const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"]);

/** Loopback addresses and the name that resolves to them. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === "::ffff:127.0.0.1";
}

/**
 * Checks HTTP options before anything is bound: serving beyond this machine without a token
 * would hand every tool to anyone who can reach the port.
 */
export function assertHttpOptions(options: HttpServeOptions): void {
  const host = options.host ?? "127.0.0.1";
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new Error(`--http needs a port between 0 and 65535, not ${String(options.port)}.`);
  }
  if (options.token !== undefined && !/^[\x21-\x7e]+$/.test(options.token)) {
    throw new Error("The bearer token must be non-empty printable ASCII without spaces.");
  }
  if (!isLoopbackHost(host) && !options.token) {
    throw new Error(
      `Refusing to serve MCP on ${host} without a bearer token: any machine that reaches it could run tackle's tools. Pass --token <secret>, or bind 127.0.0.1.`,
    );
  }
}

/**
 * Streamable HTTP at /mcp. 2026-era requests go to the SDK's per-request handler; 2025-era
 * clients get a session each (a sessionful transport), so they can be asked for approval
 * (elicitation), receive progress and hear about tool list changes, which the SDK's stateless
 * fallback cannot do.
 */
export async function serveHttp(service: ToolCallService, options: HttpServeOptions, logger: Logger): Promise<HttpServing> {
  assertHttpOptions(options);
  const host = options.host ?? "127.0.0.1";
  const loopback = isLoopbackHost(host);
  const extra = (options.allowedHosts ?? []).map((h) => h.toLowerCase());
  // A wildcard bind answers to names we cannot know; the token protects it instead.
  const checkHost = loopback || !WILDCARD_HOSTS.has(host) || extra.length > 0;
  const allowedHosts = [...localhostAllowedHostnames(), ...extra, ...(loopback || WILDCARD_HOSTS.has(host) ? [] : [bracket(host)])];
  const tokenHash = options.token ? sha256(options.token) : undefined;
  const onerror = (error: Error) => logger.debug("mcp http", { error: error.message });
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;

  const modern = createMcpHandler(() => service.createServer(), { legacy: "reject", onerror });
  const sessions = new Map<string, LegacySession>();
  // A 2025 client that goes away without DELETE leaves its session behind: idle ones are closed.
  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (session.open === 0 && now - session.lastSeen > idleMs) {
          sessions.delete(id);
          session.transport.close().catch(() => {});
        }
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweeper.unref();

  const legacy = async (request: Request, parsedBody: unknown): Promise<Response> => {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(404, -32001, "Session not found; initialize a new session.");
      session.lastSeen = Date.now();
      return session.transport.handleRequest(request, { parsedBody });
    }
    if (sessions.size >= MAX_SESSIONS) return jsonRpcError(503, -32000, "Too many open sessions; try again later.");
    if (request.method !== "POST" || !isInitialize(parsedBody)) {
      return jsonRpcError(400, -32000, "Bad Request: no session; send initialize first (or use the 2026-07-28 protocol).");
    }
    const server = service.createServer({ track: true });
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, lastSeen: Date.now(), open: 0 });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== MCP_PATH) return send(res, jsonRpcError(404, -32000, `Not found: MCP is served at ${MCP_PATH}.`));

    // DNS rebinding: a web page that resolves its own name to this address must be turned away.
    const hostHeader = req.headers.host;
    if (checkHost) {
      const verdict = validateHostHeader(hostHeader, allowedHosts);
      if (!verdict.ok) return send(res, jsonRpcError(403, -32000, verdict.message));
    }
    const origin = req.headers.origin;
    if (origin) {
      const own = hostHeader ? safeHostname(hostHeader) : undefined;
      const allowedOrigins = [...localhostAllowedHostnames(), ...extra, ...(!loopback && own ? [own] : [])];
      const verdict = validateOriginHeader(origin, allowedOrigins);
      if (!verdict.ok) return send(res, jsonRpcError(403, -32000, verdict.message));
    }
    if (tokenHash && !bearerMatches(req.headers.authorization, tokenHash)) {
      const response = jsonRpcError(401, -32001, "Unauthorized: send Authorization: Bearer <token>.");
      response.headers.set("WWW-Authenticate", 'Bearer realm="tackle"');
      return send(res, response);
    }

    let body: string | undefined;
    if (req.method === "POST") {
      body = await readBody(req, DEFAULT_MAX_REQUEST_BODY_SIZE);
      if (body === undefined) return send(res, jsonRpcError(413, -32000, "Request body too large."));
    }
    const controller = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
    }
    const request = new Request(`http://${hostHeader ?? "localhost"}${req.url ?? MCP_PATH}`, {
      method: req.method ?? "GET",
      headers,
      ...(body !== undefined ? { body } : {}),
      signal: controller.signal,
    });
    let parsedBody: unknown;
    if (body !== undefined) {
      try {
        parsedBody = JSON.parse(body);
      } catch {
        parsedBody = undefined;
      }
    }
    const isLegacy = await isLegacyRequest(request, parsedBody);
    const response = isLegacy
      ? await legacy(request, parsedBody)
      : await modern.fetch(request, parsedBody !== undefined ? { parsedBody } : {});
    // An open stream (a GET listening for notifications, a long call) keeps its session alive.
    const session = isLegacy
      ? sessions.get(request.headers.get("mcp-session-id") ?? response.headers.get("mcp-session-id") ?? "")
      : undefined;
    if (session) session.open++;
    try {
      await send(res, response);
    } finally {
      if (session) {
        session.open--;
        session.lastSeen = Date.now();
      }
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      logger.warn("mcp http request failed", { error: String(err) });
      if (!res.headersSent) void send(res, jsonRpcError(500, -32603, "Internal server error."));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}${MCP_PATH}`;

  return {
    url,
    notifyToolsChanged() {
      modern.notify.toolsChanged();
    },
    async close() {
      clearInterval(sweeper);
      await modern.close().catch(() => {});
      await Promise.allSettled([...sessions.values()].map((s) => s.transport.close()));
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function isInitialize(body: unknown): boolean {
  const first = Array.isArray(body) ? body[0] : body;
  return typeof first === "object" && first !== null && (first as { method?: unknown }).method === "initialize";
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

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Writes a web Response to a Node response, streaming (SSE) bodies chunk by chunk. */
async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const cancel = () => {
    reader.cancel().catch(() => {});
  };
  res.on("close", cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off("close", cancel);
  }
}
