import { createServer } from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { openSession, type Session, type SessionOptions } from "../session.js";
import { createLogger, type Logger } from "../core/logger.js";
import type { Desk } from "../store/desk.js";
import { StoreStream } from "./store-stream.js";
import type { ToolEvent } from "../runtime/events.js";
import type { DeskEvent } from "../store/desk.js";
import { Metrics } from "../runtime/metrics.js";
import type { ToolOutcome } from "../core/result.js";
import { withSpecNames } from "./spec-names.js";
import { EventHub } from "./event-hub.js";
import { apiHandler } from "./api.js";
import { CallHistory } from "./call-history.js";
import { assertListenOptions, requestGuard } from "../net/request-guard.js";

export interface ServeOptions extends Omit<SessionOptions, "runner" | "logger"> {
  /** Port to bind; 0 picks a free one. Default 7878. */
  port?: number;
  /** Address to bind; default 127.0.0.1. Anything but loopback requires `token`. */
  host?: string;
  /** Bearer token every /api request must carry. */
  token?: string;
  /** Unanswered approvals are rejected after this long. Default 10 minutes. */
  approvalTimeoutMs?: number;
  /** The shared store: `file` (default), `file:/folder`, `postgres://...`; default `TACKLE_STORE`, else configuration. */
  store?: string;
  /** Largest request body. Default 10 MiB. */
  maxBodyBytes?: number;
  logger?: Logger;
}

export interface ServeHandle {
  /** Where the dashboard is, e.g. http://127.0.0.1:7878/ */
  url: string;
  port: number;
  session: Session;
  /** The approval desk, shared with every tackle process on the same store. */
  desk: Desk;
  /** The open event streams. */
  events: EventHub;
  /** Every call this server knows: earlier runs' from the audit log, and its own. */
  history: CallHistory;
  /** Stops the server, rejects pending approvals and closes the session. */
  close(): Promise<void>;
  /** Resolves once closed. */
  closed: Promise<void>;
}

export { DEFAULT_SERVE_PORT } from "./defaults.js";
import { DEFAULT_SERVE_PORT } from "./defaults.js";

/**
 * `tackle serve`: opens a session whose approver is a web queue and serves the JSON API, the
 * event stream and the dashboard over HTTP.
 */
export async function startServe(options: ServeOptions = {}): Promise<ServeHandle> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? DEFAULT_SERVE_PORT;
  assertListenOptions({ host, port, token: options.token }, { portFlag: "--port", what: "the dashboard", tokenEnv: "TACKLE_SERVE_TOKEN" });
  const logger = options.logger ?? createLogger("warn");

  const { maxBodyBytes } = options;
  // Made once the session says where the audit log is; no call waits before then.
  let history: CallHistory | undefined;
  const session = await openSession({
    ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
    ...(options.configFile !== undefined ? { configFile: options.configFile } : {}),
    ...(options.approval !== undefined ? { approval: options.approval } : {}),
    ...(options.toolset !== undefined ? { toolset: options.toolset } : {}),
    ...(options.mcp !== undefined ? { mcp: options.mcp } : {}),
    logger,
    // The server answers at once; MCP servers' tools join when they connect.
    mcpWaitMs: 0,
    desk: {
      serves: true,
      onEvent: (e) => history?.observe(e),
      ...(options.store !== undefined ? { store: options.store } : {}),
      ...(options.approvalTimeoutMs !== undefined ? { timeoutMs: options.approvalTimeoutMs } : {}),
    },
  });
  const desk = session.desk!;
  const own = desk.store.instance;
  const events = new EventHub({ isAfter: (a, b) => desk.store.isAfter(a, b) });
  const logFile = session.loaded.config.log;
  const calls = new CallHistory(logFile ? { logPath: path.resolve(session.loaded.workspace, logFile) } : {});
  history = calls;
  // This server's own calls reach its history as they happen (a call's response finds it there);
  // other processes' through the store. Every process's events reach the page through the store,
  // each with its id.
  // Metrics of every process on the store since this server started: its own and the others'.
  const metrics = new Metrics();
  const ownEvents = session.runner.on("*", (e) => {
    calls.observe(e);
    if (e.type === "tool.result") metrics.record(e.outcome);
  });
  const stream = new StoreStream(desk.store, (e) => {
    if (e.instance === own) return void events.send(e.type, withSpecNames(e.data as object), e.id);
    calls.observe(e.data as ToolEvent | DeskEvent);
    const outcome = e.type === "tool.result" ? resultOutcome(e.data) : undefined;
    if (outcome) metrics.record(outcome);
    events.send(e.type, withSpecNames(e.data as object), e.id);
  });
  await stream.start();
  // A waiting call can change without an event from its process (posted by a process that died
  // at once, cleared by hand): the page hears of every change to the desk itself.
  let deskTold: NodeJS.Timeout | undefined;
  const unwatchDesk = desk.store.onChange((what) => {
    if (what !== "desk" || deskTold) return;
    deskTold = setTimeout(() => {
      deskTold = undefined;
      events.send("desk.changed", {});
    }, 20);
  });
  const unsubscribe = () => {
    ownEvents();
    stream.close();
    unwatchDesk();
    clearTimeout(deskTold);
  };

  let boundPort = port;
  const guard = requestGuard({
    host,
    port: () => boundPort,
    ...(options.token ? { token: options.token } : {}),
    // The page itself loads without one; what it calls needs it.
    needsToken: (url) => url.pathname.startsWith("/api/") || url.pathname === "/approve" || url.pathname === "/reject",
    // EventSource cannot send headers, so the event stream alone may carry the token in the query.
    tokenInQuery: (url) => url.pathname === "/api/events",
  });
  const handle = apiHandler({ session, desk, events, history: calls, metrics, ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}) });
  const server = createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://localhost");
    } catch {
      res.writeHead(400, { "Content-Type": "application/json" }).end(JSON.stringify({ error: "Bad request URL." }));
      return;
    }
    const refusal = guard(req, url);
    if (refusal) {
      req.resume();
      const headers: Record<string, string> = { "Content-Type": "application/json; charset=utf-8" };
      if (refusal.status === 401) headers["WWW-Authenticate"] = 'Bearer realm="tackle"';
      res.writeHead(refusal.status, headers).end(JSON.stringify({ error: refusal.error }));
      return;
    }
    handle(req, res, url).catch((err: unknown) => {
      logger.warn("serve request failed", { error: String(err) });
      if (!res.headersSent)
        res.writeHead(500, { "Content-Type": "application/json" }).end(JSON.stringify({ error: "Internal server error." }));
      else res.destroy();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (err) {
    unsubscribe();
    events.close();
    await session.close();
    throw err;
  }
  const address = server.address() as AddressInfo;
  boundPort = address.port;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await desk.close("the approval server closed before anyone answered");
      await stream.flush();
      events.close();
      unsubscribe();
      // Calls already running finish their responses; the connections then go.
      await new Promise<void>((resolve) => {
        // Keep-alive connections go as soon as their last response is written; stragglers after 2 s.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const force = setTimeout(() => server.closeAllConnections(), 2000);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      await session.close();
      resolveClosed();
    })());

  return { url: `http://${shown}:${boundPort}/`, port: boundPort, session, desk, events, history: calls, close, closed };
}

/** The outcome in another process's tool.result event, when it has the fields the metrics count. */
function resultOutcome(data: unknown): ToolOutcome | undefined {
  const outcome = (data as { outcome?: Partial<ToolOutcome> } | undefined)?.outcome;
  if (!outcome || typeof outcome.toolName !== "string" || typeof outcome.executionTimeMs !== "number") return undefined;
  if (!["success", "error", "rejected", "cancelled"].includes(String(outcome.status))) return undefined;
  return outcome as ToolOutcome;
}
