import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_MAX_REQUEST_BODY_SIZE, createMcpHandler, isLegacyRequest } from "@modelcontextprotocol/server";
import { isRecord } from "../../core/is-record.js";
import type { Logger } from "../../core/logger.js";
import { requestGuard } from "../../net/request-guard.js";
import { assertHttpOptions, type HttpServeOptions } from "./http-options.js";
import { LegacySessions } from "./legacy-sessions.js";
import { surelyLegacy, surelyModern } from "./era-shortcut.js";
import type { ToolCallService } from "./server-calls.js";
import { jsonWhenWhole } from "./json-when-whole.js";
import { jsonRpcError, readBody, send, toWebRequest } from "./web-bridge.js";

export interface HttpServing {
  url: string;
  notifyToolsChanged(): void;
  close(): Promise<void>;
}

const MCP_PATH = "/mcp";
const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

/**
 * Streamable HTTP at /mcp. 2026-era requests go to the SDK's per-request handler; 2025-era
 * clients get a session each (see LegacySessions).
 */
export async function serveHttp(service: ToolCallService, options: HttpServeOptions, logger: Logger): Promise<HttpServing> {
  assertHttpOptions(options);
  const host = options.host ?? "127.0.0.1";
  let boundPort = options.port;
  const guard = requestGuard({
    host,
    port: () => boundPort,
    ...(options.token ? { token: options.token } : {}),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
  });
  const onerror = (error: Error) => logger.debug("mcp http", { error: error.message });
  const modern = createMcpHandler(() => service.createServer(), { legacy: "reject", onerror });
  const legacy = new LegacySessions(service, options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== MCP_PATH) return send(res, jsonRpcError(404, -32000, `Not found: MCP is served at ${MCP_PATH}.`));
    const refusal = guard(req, url);
    if (refusal) {
      const response = jsonRpcError(refusal.status, refusal.status === 401 ? -32001 : -32000, refusal.error);
      if (refusal.status === 401) response.headers.set("WWW-Authenticate", 'Bearer realm="tackle"');
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
    const parsedBody = parseJson(body);
    // The SDK reads a request's body only when it is not handed the parsed one: to answer a parse error.
    const request = toWebRequest(req, parsedBody === undefined ? body : undefined, controller.signal, MCP_PATH);
    const version = req.headers["mcp-protocol-version"];
    const legacyEra =
      !surelyModern(parsedBody) &&
      (surelyLegacy(parsedBody, typeof version === "string" ? version : undefined) || (await isLegacyRequest(request, parsedBody)));
    if (!legacyEra) {
      return send(res, await modern.fetch(request, parsedBody !== undefined ? { parsedBody } : {}));
    }
    const response = await legacy.handle(request, parsedBody);
    const sessionId = request.headers.get("mcp-session-id") ?? response.headers.get("mcp-session-id");
    const requestId = soleRequestId(parsedBody);
    await legacy.streaming(sessionId, async () =>
      send(res, requestId === undefined ? response : await jsonWhenWhole(response, requestId, controller.signal)),
    );
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
  boundPort = address.port;
  const url = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}${MCP_PATH}`;

  return {
    url,
    notifyToolsChanged() {
      modern.notify.toolsChanged();
    },
    async close() {
      await modern.close().catch(() => {});
      await legacy.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The id of a posted message that is one JSON-RPC request (not a batch, not a notification). */
function soleRequestId(body: unknown): string | number | undefined {
  if (!isRecord(body) || typeof body["method"] !== "string") return undefined;
  const id = body["id"];
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

function parseJson(body: string | undefined): unknown {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
