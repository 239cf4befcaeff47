import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { ToolError } from "../../core/errors.js";
import { silentLogger, type Logger } from "../../core/logger.js";
import type { ToolContext } from "../../core/tool.js";
import type { ToolExecutionResult } from "../../core/result.js";
import type { ResolvedServer } from "./client-config.js";
import { hasLogin, StoredOAuthProvider } from "./oauth.js";
import { StdioProcessTransport } from "./stdio-process.js";
import { toToolResult, type McpCallResult } from "./call-result.js";
import { isShuttingDown } from "./process-cleanup.js";
import type { McpTool, McpToolTarget } from "./proxy.js";

export const CLIENT_INFO = { name: "tackle", version: "0.1.0" } as const;

/**
 * - `connecting`: first connection under way;
 * - `ready`: connected, tools listed;
 * - `reconnecting`: it died (or its HTTP session expired); a new connection is on its way;
 * - `failed`: it could not be (re)connected; its tools answer UNAVAILABLE;
 * - `closed`: shut down on purpose.
 */
/** A resource as a server lists it. */
export interface McpResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

/** A resource template (RFC 6570 URI template) as a server lists it. */
export interface McpResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** One part of a resource's contents: text, or base64 bytes. */
export interface McpResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/** A prompt as a server lists it. */
export interface McpPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
}

/** A prompt filled in: its messages. */
export interface McpPromptResult {
  description?: string;
  messages: Array<{
    role: "user" | "assistant";
    content: { type: string; text?: string; resource?: McpResourceContents; mimeType?: string };
  }>;
}

export type ConnectionState = "idle" | "connecting" | "ready" | "reconnecting" | "failed" | "closed";

export interface BackoffOptions {
  /** First delay before respawning a server that died. Default 500 ms. */
  initialMs: number;
  /** Longest delay. Default 30 s. */
  maxMs: number;
  /** Respawns in a row before giving up. Default 8. */
  maxAttempts: number;
  /** A connection that lived this long resets the count. Default 30 s. */
  stableMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000, maxAttempts: 8, stableMs: 30_000 };

export interface McpConnectionOptions {
  logger?: Logger;
  backoff?: Partial<BackoffOptions>;
  /** Told when the server's tools change: after list_changed, and after a respawn. */
  onToolsChanged?: (connection: McpConnection) => void;
}

interface Live {
  client: Client;
  transport: Transport;
  /** Bumped per connection, so the close of an old one is not taken for the current one's. */
  generation: number;
  since: number;
}

/**
 * One configured MCP server (spec 000's McpClient): connects over stdio, Streamable HTTP or
 * SSE, lists its tools, calls them, and keeps the connection alive: a server that dies is
 * respawned with backoff, an HTTP session the server forgot (404) is established again, and a
 * `notifications/tools/list_changed` reloads the tool list.
 */
export class McpConnection implements McpToolTarget {
  readonly name: string;
  readonly config: ResolvedServer;
  state: ConnectionState = "idle";
  /** The tools the server lists, as it lists them. */
  tools: McpTool[] = [];
  /** Why the server is not usable, when it is not. */
  lastError?: string;

  readonly #logger: Logger;
  readonly #backoff: BackoffOptions;
  readonly #onToolsChanged?: (connection: McpConnection) => void;
  #live?: Live;
  #generation = 0;
  #attempt = 0;
  /** Aborted by close(): a connection still being set up is torn down, its process stopped. */
  readonly #closing = new AbortController();
  #timer?: NodeJS.Timeout;
  #reestablishing?: Promise<void>;
  #refreshTimer?: NodeJS.Timeout;

  constructor(config: ResolvedServer, options: McpConnectionOptions = {}) {
    this.name = config.name;
    this.config = config;
    this.#logger = options.logger ?? silentLogger;
    this.#backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    if (options.onToolsChanged) this.#onToolsChanged = options.onToolsChanged;
  }

  /** The server's process id, for stdio servers that are running. */
  get pid(): number | undefined {
    const t = this.#live?.transport;
    return t instanceof StdioProcessTransport ? t.pid : undefined;
  }

  /** What the transport in use is: stdio, http (Streamable HTTP) or sse. */
  get transportKind(): "stdio" | "http" | "sse" | undefined {
    const t = this.#live?.transport;
    if (!t) return undefined;
    return t instanceof StdioProcessTransport ? "stdio" : t instanceof SSEClientTransport ? "sse" : "http";
  }

  /** The server's name and version, as it reported them. */
  get serverInfo(): { name: string; version: string } | undefined {
    return this.#live?.client.getServerVersion();
  }

  /** Connects within the configured time limit and lists the tools. Throws with the reason (and the server's stderr tail). */
  async connect(): Promise<McpTool[]> {
    if (this.state === "closed") throw new Error(`MCP server "${this.name}" is closed.`);
    this.state = "connecting";
    try {
      await this.#establish();
      this.state = "ready";
      delete this.lastError;
      return this.tools;
    } catch (err) {
      if ((this.state as ConnectionState) !== "closed") this.state = "failed";
      this.lastError = (err as Error).message;
      throw err;
    }
  }

  /** Calls `tool` on the server (its own name, not the proxy's). */
  async callTool(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolExecutionResult> {
    if (this.#reestablishing) await this.#reestablishing.catch(() => {});
    const live = this.#usable();
    try {
      return await this.#call(live, tool, args, ctx);
    } catch (err) {
      if (isSessionGone(err) && !ctx.signal.aborted) {
        // The server restarted or dropped our session: the request never ran, so it is safe
        // to open a new session and send it once more.
        await this.#reestablish(live).catch((e: unknown) => {
          throw new ToolError(
            "UNAVAILABLE",
            `The MCP server "${this.name}" lost our session and a new one could not be opened: ${describe(e)}`,
            { cause: e, recoverable: true },
          );
        });
        return await this.#call(this.#usable(), tool, args, ctx).catch((e: unknown) => {
          throw this.#callError(e, tool);
        });
      }
      throw this.#callError(err, tool);
    }
  }

  /** What the server offers besides tools: which of resources and prompts it declared. */
  get offers(): { resources: boolean; prompts: boolean } {
    const caps = this.#live?.client.getServerCapabilities();
    return { resources: Boolean(caps?.resources), prompts: Boolean(caps?.prompts) };
  }

  /** The server's resources and resource templates, every page (up to 100 pages). */
  async resources(signal?: AbortSignal): Promise<{ resources: McpResource[]; templates: McpResourceTemplate[] }> {
    const live = this.#usable();
    if (!this.offers.resources) return { resources: [], templates: [] };
    const options = { timeout: this.config.callTimeoutMs, cacheMode: "bypass" as const, ...(signal ? { signal } : {}) };
    const resources = await allPages(
      (cursor) => live.client.listResources(cursor ? { cursor } : undefined, options),
      (r) => r.resources,
    );
    const templates = await allPages(
      (cursor) => live.client.listResourceTemplates(cursor ? { cursor } : undefined, options),
      (r) => r.resourceTemplates,
    ).catch(() => []);
    return { resources: resources as McpResource[], templates: templates as McpResourceTemplate[] };
  }

  /** One resource's contents, as the server sends them. */
  async readResource(uri: string, signal?: AbortSignal): Promise<McpResourceContents[]> {
    const live = this.#usable();
    try {
      const result = await live.client.readResource({ uri }, { timeout: this.config.callTimeoutMs, ...(signal ? { signal } : {}) });
      return result.contents as McpResourceContents[];
    } catch (err) {
      throw this.#callError(err, `resources/read ${uri}`);
    }
  }

  /** The server's prompts, every page. */
  async prompts(signal?: AbortSignal): Promise<McpPrompt[]> {
    const live = this.#usable();
    if (!this.offers.prompts) return [];
    const options = { timeout: this.config.callTimeoutMs, cacheMode: "bypass" as const, ...(signal ? { signal } : {}) };
    return (await allPages(
      (cursor) => live.client.listPrompts(cursor ? { cursor } : undefined, options),
      (r) => r.prompts,
    )) as McpPrompt[];
  }

  /** One prompt, filled in with `args`. */
  async getPrompt(name: string, args: Record<string, string>, signal?: AbortSignal): Promise<McpPromptResult> {
    const live = this.#usable();
    try {
      return (await live.client.getPrompt(
        { name, arguments: args },
        { timeout: this.config.callTimeoutMs, ...(signal ? { signal } : {}) },
      )) as McpPromptResult;
    } catch (err) {
      throw this.#callError(err, `prompts/get ${name}`);
    }
  }

  /** Reloads the tool list now (also done on `notifications/tools/list_changed`). */
  async refreshTools(): Promise<McpTool[]> {
    const live = this.#usable();
    this.tools = await listAllTools(live.client, this.config.connectTimeoutMs);
    this.#onToolsChanged?.(this);
    return this.tools;
  }

  /** Stops the server (its whole process tree) and any respawn planned. */
  async close(): Promise<void> {
    this.state = "closed";
    this.#closing.abort(`MCP server "${this.name}" was closed while connecting`);
    clearTimeout(this.#timer);
    clearTimeout(this.#refreshTimer);
    const live = this.#live;
    this.#live = undefined;
    if (live) await shutdown(live);
  }

  // ---------------------------------------------------------------------------------------------

  #usable(): Live {
    const live = this.#live;
    if (this.state === "ready" && live) return live;
    const why = this.lastError ? ` (${this.lastError})` : "";
    const next =
      this.state === "reconnecting"
        ? "tackle is restarting it; try again in a few seconds."
        : this.state === "closed"
          ? "the session is shutting down."
          : "it could not be restarted; check its configuration and logs, then restart tackle.";
    const reconnecting = this.state === "reconnecting";
    throw new ToolError("UNAVAILABLE", `The MCP server "${this.name}" is not available${why}; ${next}`, {
      recoverable: reconnecting,
      ...(reconnecting ? { retryAfterMs: 2_000 } : {}),
    });
  }

  async #call(live: Live, tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolExecutionResult> {
    const result = (await live.client.callTool(
      { name: tool, arguments: args },
      {
        signal: ctx.signal,
        timeout: this.config.callTimeoutMs,
        resetTimeoutOnProgress: true,
        onprogress: (p) => {
          ctx.onProgress({
            progress: p.progress,
            ...(p.total !== undefined ? { total: p.total } : {}),
            ...(typeof p.message === "string" ? { message: p.message } : {}),
          });
        },
      },
    )) as McpCallResult;
    return toToolResult(result, this.name, tool);
  }

  #callError(err: unknown, tool: string): unknown {
    if (err instanceof ToolError) return err;
    if (err instanceof SdkError && !(err instanceof SdkHttpError)) {
      if (err.code === SdkErrorCode.RequestTimeout) {
        return new ToolError(
          "TIMEOUT",
          `The MCP server "${this.name}" did not answer ${tool} within ${this.config.callTimeoutMs / 1000} s (and sent no progress).`,
          { cause: err },
        );
      }
      if (err.code === SdkErrorCode.ConnectionClosed) {
        const why = this.lastError ?? this.#describeExit();
        return new ToolError(
          "UNAVAILABLE",
          `The MCP server "${this.name}" went away during the call to ${tool}${why ? ` (${why})` : ""}. ` +
            `It is being restarted; the call may or may not have taken effect.`,
          { cause: err, recoverable: false },
        );
      }
      return new ToolError("EXECUTION_ERROR", `The MCP server "${this.name}" failed on ${tool}: ${err.message}`, { cause: err });
    }
    if (err instanceof ProtocolError) {
      if (err.code === ProtocolErrorCode.InvalidParams)
        return new ToolError("INVALID_ARGS", `The MCP server "${this.name}" rejected the arguments for ${tool}: ${err.message}`, {
          cause: err,
        });
      return new ToolError("EXECUTION_ERROR", `The MCP server "${this.name}" failed on ${tool}: ${err.message}`, { cause: err });
    }
    if (err instanceof SdkHttpError)
      return new ToolError("NETWORK_ERROR", `The MCP server "${this.name}" answered HTTP ${err.status}: ${err.message}`, { cause: err });
    if (err instanceof Error && err.name !== "AbortError" && /fetch failed|ECONNREFUSED|ECONNRESET|socket/i.test(err.message)) {
      return new ToolError("NETWORK_ERROR", `Cannot reach the MCP server "${this.name}": ${err.message}`, { cause: err });
    }
    return err;
  }

  async #establish(): Promise<void> {
    const generation = ++this.#generation;
    const live = await withDeadline(
      this.config.connectTimeoutMs,
      {
        expired: `MCP server "${this.name}" did not finish connecting within ${this.config.connectTimeoutMs / 1000} s`,
        stopped: `MCP server "${this.name}" was closed before it finished connecting`,
      },
      (signal, onTransport) => this.#open(generation, signal, onTransport),
      this.#closing.signal,
    );
    const previous = this.#live;
    this.#live = live;
    if (previous) void shutdown(previous);
    if (this.state === "closed") {
      this.#live = undefined;
      await shutdown(live);
      throw new Error(`MCP server "${this.name}" is closed.`);
    }
  }

  async #open(generation: number, signal: AbortSignal, onTransport: (t: Transport) => void): Promise<Live> {
    const cfg = this.config;
    if (cfg.transport === "stdio") {
      const transport = new StdioProcessTransport({ command: cfg.command, args: cfg.args, env: cfg.env, cwd: cfg.cwd, limits: cfg.limits });
      onTransport(transport);
      return this.#handshake(transport, generation, signal).catch((err: unknown) => {
        throw new Error(withStderr(`MCP server "${this.name}" failed to start: ${describe(err)}`, transport), { cause: err });
      });
    }
    const requestInit: RequestInit = { headers: cfg.headers };
    // A server someone signed into with `tackle login`: the SDK sends its tokens and refreshes them.
    const authProvider = hasLogin(this.name, cfg.url) ? new StoredOAuthProvider(this.name, cfg.url) : undefined;
    const httpOptions = { requestInit, ...(authProvider ? { authProvider } : {}) };
    if (cfg.transport === "sse") {
      const transport = new SSEClientTransport(cfg.url, httpOptions);
      onTransport(transport);
      return this.#handshake(transport, generation, signal);
    }
    const streamable = new StreamableHTTPClientTransport(cfg.url, httpOptions);
    onTransport(streamable);
    try {
      return await this.#handshake(streamable, generation, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      // Servers from before 2025-03-26 speak only the HTTP+SSE transport: try it before giving up.
      this.#logger.debug(`MCP server "${this.name}": Streamable HTTP failed (${describe(err)}); trying the SSE transport`);
      const sse = new SSEClientTransport(cfg.url, httpOptions);
      onTransport(sse);
      try {
        return await this.#handshake(sse, generation, signal);
      } catch (err2) {
        const signIn =
          /\b401\b|unauthori[sz]ed|invalid_token/i.test(describe(err)) && !authProvider
            ? ` It asks for a sign-in: run tackle login ${this.name}.`
            : "";
        throw new Error(
          `MCP server "${this.name}" at ${cfg.url.href} is not reachable: Streamable HTTP: ${describe(err)}; SSE: ${describe(err2)}.${signIn}`,
          { cause: err2 },
        );
      }
    }
  }

  async #handshake(transport: Transport, generation: number, signal: AbortSignal): Promise<Live> {
    const client = new Client({ ...CLIENT_INFO }, { capabilities: {} });
    client.onerror = (err) => this.#logger.debug(`MCP server "${this.name}": ${describe(err)}`);
    client.onclose = () => this.#onClosed(generation);
    client.setNotificationHandler("notifications/tools/list_changed", () => this.#scheduleRefresh(generation));
    try {
      await client.connect(transport, { signal, timeout: this.config.connectTimeoutMs });
      const tools = await listAllTools(client, this.config.connectTimeoutMs, signal);
      if (transport instanceof StdioProcessTransport) await transport.snapshotDescendants().catch(() => {});
      this.tools = tools;
      return { client, transport, generation, since: Date.now() };
    } catch (err) {
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
      throw err;
    }
  }

  #describeExit(): string | undefined {
    const t = this.#live?.transport;
    if (!(t instanceof StdioProcessTransport)) return undefined;
    const exit = t.exitInfo;
    const how = exit ? (exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`) : "closed its output";
    return withStderr(`the process ${how}`, t);
  }

  #onClosed(generation: number): void {
    const live = this.#live;
    if (!live || live.generation !== generation) return;
    if (this.state === "closed" || this.state === "connecting") return;
    if (this.#reestablishing) return;
    this.lastError = this.#describeExit() ?? "the connection closed";
    this.#live = undefined;
    void shutdown(live);
    if (isShuttingDown()) {
      this.state = "closed";
      return;
    }
    if (Date.now() - live.since >= this.#backoff.stableMs) this.#attempt = 0;
    this.#logger.warn(`MCP server "${this.name}" stopped (${this.lastError}); restarting it.`);
    this.state = "reconnecting";
    this.#scheduleRespawn();
  }

  #scheduleRespawn(): void {
    if (this.#attempt >= this.#backoff.maxAttempts) {
      this.state = "failed";
      this.#logger.error(
        `MCP server "${this.name}" kept failing; gave up after ${this.#attempt} restarts. Last error: ${this.lastError ?? "unknown"}`,
      );
      return;
    }
    const delay = Math.min(this.#backoff.maxMs, this.#backoff.initialMs * 2 ** this.#attempt);
    this.#attempt++;
    this.#timer = setTimeout(() => void this.#respawn(), delay * (0.8 + Math.random() * 0.4));
    this.#timer.unref();
  }

  async #respawn(): Promise<void> {
    if (this.state !== "reconnecting" || isShuttingDown()) return;
    try {
      await this.#establish();
      if ((this.state as ConnectionState) === "closed") return;
      this.state = "ready";
      delete this.lastError;
      this.#logger.info(`MCP server "${this.name}" is back.`);
      this.#onToolsChanged?.(this);
    } catch (err) {
      if ((this.state as ConnectionState) === "closed") return;
      this.lastError = (err as Error).message;
      this.#logger.warn(`Restarting MCP server "${this.name}" failed: ${this.lastError}`);
      this.#scheduleRespawn();
    }
  }

  /** A new session after a 404: one at a time, however many calls noticed. */
  #reestablish(stale: Live): Promise<void> {
    if (this.#reestablishing) return this.#reestablishing;
    if (this.#live !== stale) return Promise.resolve();
    this.state = "reconnecting";
    this.lastError = "its HTTP session expired";
    this.#logger.info(`MCP server "${this.name}" no longer knows our session; opening a new one.`);
    this.#reestablishing = (async () => {
      try {
        await this.#establish();
        if ((this.state as ConnectionState) === "closed") return;
        this.state = "ready";
        delete this.lastError;
        this.#onToolsChanged?.(this);
      } catch (err) {
        if ((this.state as ConnectionState) === "closed") return;
        this.lastError = (err as Error).message;
        this.state = "reconnecting";
        this.#scheduleRespawn();
        throw err;
      } finally {
        this.#reestablishing = undefined;
      }
    })();
    return this.#reestablishing;
  }

  #scheduleRefresh(generation: number): void {
    clearTimeout(this.#refreshTimer);
    // Servers often send several list_changed in a burst (one per tool added): reload once.
    this.#refreshTimer = setTimeout(() => {
      if (this.#live?.generation !== generation || this.state !== "ready") return;
      this.refreshTools().catch((err: unknown) =>
        this.#logger.warn(`MCP server "${this.name}": reloading its tools failed: ${describe(err)}`),
      );
    }, 50);
    this.#refreshTimer.unref();
  }
}

/** Every page of a paginated list, up to 100 pages. */
async function allPages<R extends { nextCursor?: string | undefined }, T>(
  fetchPage: (cursor: string | undefined) => Promise<R>,
  items: (page: R) => T[],
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await fetchPage(cursor);
    out.push(...items(result));
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return out;
}

async function listAllTools(client: Client, timeout: number, signal?: AbortSignal): Promise<McpTool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    // The SDK would answer a repeated list from its cache; a refresh after list_changed must ask the server.
    const result = await client.listTools(cursor ? { cursor } : undefined, { timeout, cacheMode: "bypass", ...(signal ? { signal } : {}) });
    tools.push(...(result.tools as McpTool[]));
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

async function shutdown(live: Live): Promise<void> {
  const t = live.transport;
  if (t instanceof StreamableHTTPClientTransport && t.sessionId) {
    // Tell the server the session is over; it may not care (405) or be gone.
    await Promise.race([t.terminateSession().catch(() => {}), new Promise((r) => setTimeout(r, 1_000).unref())]);
  }
  await live.client.close().catch(() => {});
  await t.close().catch(() => {});
}

/**
 * Runs `fn` under a time limit. On expiry, or when `stop` aborts (the connection is closed while
 * still connecting), the signal aborts and the transport `fn` reported is closed (killing a stdio
 * server's tree), so a server that never answers never lingers.
 */
async function withDeadline<T>(
  ms: number,
  messages: { expired: string; stopped: string },
  fn: (signal: AbortSignal, onTransport: (t: Transport) => void) => Promise<T>,
  stop: AbortSignal,
): Promise<T> {
  const controller = new AbortController();
  const transports: Transport[] = [];
  let timer: NodeJS.Timeout | undefined;
  let onStop: () => void = () => {};
  let message = messages.expired;
  const expired = new Promise<never>((_, reject) => {
    const end = (why: string) => {
      message = why;
      const err = new Error(why);
      controller.abort(err);
      reject(err);
    };
    timer = setTimeout(() => end(messages.expired), ms);
    onStop = () => end(messages.stopped);
    if (stop.aborted) onStop();
    else stop.addEventListener("abort", onStop, { once: true });
  });
  const work = fn(controller.signal, (t) => transports.push(t));
  try {
    return await Promise.race([work, expired]);
  } catch (err) {
    if (controller.signal.aborted) {
      await Promise.allSettled(transports.map((t) => t.close()));
      work.catch(() => {});
      const last = transports.at(-1);
      throw new Error(last instanceof StdioProcessTransport ? withStderr(message, last) : message, { cause: err });
    }
    throw err;
  } finally {
    clearTimeout(timer);
    stop.removeEventListener("abort", onStop);
  }
}

/** A 404 for our session: Streamable HTTP says so with a status; the SSE transport only in its message. */
function isSessionGone(err: unknown): boolean {
  if (err instanceof SdkHttpError) return err.status === 404;
  return err instanceof Error && err.message.startsWith("Error POSTing to endpoint (HTTP 404)");
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

function withStderr(message: string, transport: StdioProcessTransport): string {
  const tail = transport.stderrTail;
  if (!tail) return message;
  const short = tail.length > 2_000 ? `...${tail.slice(-2_000)}` : tail;
  return `${message}. Its stderr ended with:\n${short}`;
}
