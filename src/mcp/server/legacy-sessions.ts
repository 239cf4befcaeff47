import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport, type Server } from "@modelcontextprotocol/server";
import type { ToolCallService } from "./server-calls.js";
import { jsonRpcError } from "./web-bridge.js";

/** 2025-era sessions kept at once; more are refused until some close or expire. */
const MAX_SESSIONS = 1000;

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
  /** Responses (streams) still being written for this session. */
  open: number;
}

/**
 * The 2025-era side of the endpoint: each client gets a sessionful transport, so it can be asked
 * for approval (elicitation), receive progress and hear about tool list changes, which the SDK's
 * stateless fallback cannot do. Sessions a client abandoned without DELETE are closed when idle.
 */
export class LegacySessions {
  readonly #sessions = new Map<string, Session>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(
    private readonly service: ToolCallService,
    idleMs: number,
  ) {
    this.#sweeper = setInterval(() => this.#sweep(idleMs), Math.min(idleMs, 60_000));
    this.#sweeper.unref();
  }

  async handle(request: Request, parsedBody: unknown): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      const session = this.#sessions.get(sessionId);
      if (!session) return jsonRpcError(404, -32001, "Session not found; initialize a new session.");
      session.lastSeen = Date.now();
      return session.transport.handleRequest(request, { parsedBody });
    }
    if (this.#sessions.size >= MAX_SESSIONS) return jsonRpcError(503, -32000, "Too many open sessions; try again later.");
    if (request.method !== "POST" || !isInitialize(parsedBody)) {
      return jsonRpcError(400, -32000, "Bad Request: no session; send initialize first (or use the 2026-07-28 protocol).");
    }
    const server = this.service.createServer({ track: true });
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { transport, server, lastSeen: Date.now(), open: 0 });
      },
      onsessionclosed: (id) => {
        this.#sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.#sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody });
  }

  /** Runs `write` while the session's response streams: an open stream keeps its session alive. */
  async streaming(sessionId: string | null, write: () => Promise<void>): Promise<void> {
    const session = this.#sessions.get(sessionId ?? "");
    if (session) session.open++;
    try {
      await write();
    } finally {
      if (session) {
        session.open--;
        session.lastSeen = Date.now();
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    await Promise.allSettled([...this.#sessions.values()].map((s) => s.transport.close()));
    this.#sessions.clear();
  }

  #sweep(idleMs: number): void {
    const now = Date.now();
    for (const [id, session] of this.#sessions) {
      if (session.open === 0 && now - session.lastSeen > idleMs) {
        this.#sessions.delete(id);
        session.transport.close().catch(() => {});
      }
    }
  }
}

function isInitialize(body: unknown): boolean {
  const first = Array.isArray(body) ? body[0] : body;
  return typeof first === "object" && first !== null && (first as { method?: unknown }).method === "initialize";
}
