import type { ToolRegistry } from "../../registry/registry.js";
import type { AnyTool } from "../../core/tool.js";
import { JsonSchemaTool } from "../../compat/json-schema-tool.js";
import { silentLogger, type Logger } from "../../core/logger.js";
import { resolveServer, type ResolvedServer } from "./client-config.js";
import { McpConnection, type BackoffOptions, type ConnectionState } from "./connection.js";
import { proxyToolName } from "./naming.js";
import { McpToolProxy } from "./proxy.js";
import { createResourceTools } from "./resource-tools.js";

export interface McpManagerOptions {
  logger?: Logger;
  /** Relative `cwd` values resolve against this; also the servers' default cwd. Default: the current directory. */
  baseDir?: string;
  /** Values for `${VAR}` in server entries (`.env` plus the environment). */
  vars?: Record<string, string | undefined>;
  /** Where proxies are registered, and kept in step with each server's tool list. */
  registry?: ToolRegistry;
  backoff?: Partial<BackoffOptions>;
}

/** One server's state, for `tackle tools`, dashboards and tests. */
export interface McpServerStatus {
  name: string;
  state: ConnectionState;
  transport?: "stdio" | "http" | "sse";
  tools: string[];
  error?: string;
}

/**
 * Spec 000's McpManager: connects to every server in `mcpServers` in parallel, each with its own
 * time limit, and proxies their tools as `{server}__{tool}`. A server that fails, crashes or
 * never answers is logged and skipped; it never blocks the others. Proxies stay in step with
 * each server's tool list (list_changed, respawns). `close()` stops every server's process tree.
 */
export class McpManager {
  readonly #raw: Record<string, unknown>;
  readonly #options: McpManagerOptions;
  readonly #logger: Logger;
  readonly #connections = new Map<string, McpConnection>();
  /** Registry name → proxy, per server. */
  readonly #proxies = new Map<string, Map<string, AnyTool>>();
  readonly #plain = new Map<string, McpToolProxy>();
  readonly #resourceTools: AnyTool[] = [];
  #closed = false;
  #started = false;

  constructor(servers: Record<string, unknown> | undefined, options: McpManagerOptions = {}) {
    this.#raw = servers ?? {};
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * Connects to every enabled server (all at once, settled, not all-or-nothing) and returns the
   * proxies of those that answered. With a registry, each server's proxies are registered there
   * as soon as it connects, before the others are done.
   */
  async connectAll(): Promise<AnyTool[]> {
    if (this.#started) return this.tools();
    this.#started = true;
    const resolved: ResolvedServer[] = [];
    for (const [name, raw] of Object.entries(this.#raw)) {
      if (typeof raw === "object" && raw !== null && (raw as { disabled?: unknown }).disabled === true) continue;
      try {
        resolved.push(
          resolveServer(name, raw, {
            baseDir: this.#options.baseDir ?? process.cwd(),
            vars: this.#options.vars ?? process.env,
            warn: (m) => this.#logger.warn(m),
          }),
        );
      } catch (err) {
        this.#logger.error(`${(err as Error).message} Skipping it.`);
      }
    }
    const connections = resolved.map((config) => {
      const connection = new McpConnection(config, {
        logger: this.#logger,
        ...(this.#options.backoff ? { backoff: this.#options.backoff } : {}),
        onToolsChanged: (c) => this.#sync(c),
      });
      this.#connections.set(config.name, connection);
      return connection;
    });
    if (connections.length) this.#addResourceTools();
    // Each server's tools join the moment it answers: a slow server holds back only its own.
    const settled = await Promise.allSettled(connections.map((c) => c.connect().then(() => this.#sync(c))));
    settled.forEach((s, i) => {
      // A server still starting when the session closed was not skipped: nothing waited for it.
      if (s.status === "rejected" && !this.#closed) {
        this.#logger.warn(`MCP server "${connections[i]!.name}" is skipped: ${(s.reason as Error).message ?? String(s.reason)}`);
      }
    });
    if (this.#closed) await this.close();
    return this.tools();
  }

  /** The proxy behind a registered name: which server and which of its tools it calls. */
  proxy(name: string): McpToolProxy | undefined {
    return this.#plain.get(name);
  }

  /** Every proxy, all servers, and the tools over their resources and prompts. */
  tools(): AnyTool[] {
    return [...[...this.#proxies.values()].flatMap((m) => [...m.values()]), ...this.#resourceTools];
  }

  connection(name: string): McpConnection | undefined {
    return this.#connections.get(name);
  }

  /** Every configured server's connection. */
  connections(): McpConnection[] {
    return [...this.#connections.values()];
  }

  /** mcp_resources, mcp_read_resource, mcp_prompts and mcp_get_prompt, registered once servers are configured. */
  #addResourceTools(): void {
    const registry = this.#options.registry;
    for (const tool of createResourceTools(this)) {
      if (registry?.has(tool.name)) continue; // a tool of that name is there already (a built-in, or a test's)
      registry?.register(tool);
      this.#resourceTools.push(tool);
    }
  }

  status(): McpServerStatus[] {
    return [...this.#connections.values()].map((c) => ({
      name: c.name,
      state: c.state,
      ...(c.transportKind ? { transport: c.transportKind } : {}),
      tools: [...(this.#proxies.get(c.name)?.keys() ?? [])],
      ...(c.lastError ? { error: c.lastError } : {}),
    }));
  }

  /** Spec 000's `ConnectAllAsync()`: {@link connectAll}. */
  connectAllAsync(): Promise<AnyTool[]> {
    return this.connectAll();
  }

  /** Spec 000's `DisposeAsync()`: {@link close}. */
  disposeAsync(): Promise<void> {
    return this.close();
  }

  /** `await using manager = new McpManager(...)` closes it when the block ends. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Stops every server and removes the proxies from the registry. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#connections.values()].map((c) => c.close()));
    for (const [server] of this.#proxies) this.#unregister(server);
    const registry = this.#options.registry;
    for (const tool of this.#resourceTools.splice(0)) if (registry?.get(tool.name) === tool) registry.unregister(tool.name);
  }

  /** Replaces a server's proxies with ones for its current tool list. */
  #sync(connection: McpConnection): void {
    if (this.#closed) return;
    const registry = this.#options.registry;
    this.#unregister(connection.name);
    const mine = new Map<string, AnyTool>();
    const isTaken = (name: string) => mine.has(name) || (registry?.has(name) ?? false) || this.#owner(name) !== undefined;
    for (const tool of connection.tools) {
      const name = proxyToolName(connection.name, tool.name, isTaken);
      if (!name) {
        this.#logger.error(
          `MCP server "${connection.name}": the tool "${tool.name}" collides with another tool's name; it is not registered.`,
        );
        continue;
      }
      let proxy: AnyTool;
      const plain = new McpToolProxy(connection, tool, name, { trusted: connection.config.trusted });
      try {
        proxy = new JsonSchemaTool(plain);
        registry?.register(proxy);
      } catch (err) {
        this.#logger.error(`MCP server "${connection.name}": cannot register the tool "${tool.name}": ${(err as Error).message}`);
        continue;
      }
      mine.set(name, proxy);
      this.#plain.set(name, plain);
    }
    this.#proxies.set(connection.name, mine);
  }

  #owner(name: string): string | undefined {
    for (const [server, map] of this.#proxies) if (map.has(name)) return server;
    return undefined;
  }

  #unregister(server: string): void {
    const old = this.#proxies.get(server);
    if (!old) return;
    const registry = this.#options.registry;
    // Only what is still ours: never remove a tool someone else registered under the name since.
    for (const [name, tool] of old) {
      this.#plain.delete(name);
      if (registry && registry.get(name) === tool) registry.unregister(name);
    }
    this.#proxies.delete(server);
  }
}
