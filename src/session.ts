import path from "node:path";
import type { ToolRegistry } from "./core/registry.js";
import { createLogger, type Logger } from "./core/logger.js";
import { loadConfig, type LoadedConfig } from "./config/config.js";
import { createRegistry } from "./tools/builtin.js";
import type { Toolset } from "./tools/toolsets.js";
import { ToolRunner, type ToolRunnerOptions } from "./runtime/runner.js";
import type { ApprovalMode } from "./runtime/policy.js";
import type { McpManager } from "./mcp/client/manager.js";
import type { SearchProvider } from "./tools/web/search-provider.js";

export interface SessionOptions {
  /** Workspace root; default from configuration, else the current directory. */
  workspace?: string;
  /** Configuration file; default tackle.config.json or config.json in the workspace. */
  configFile?: string;
  approval?: ApprovalMode;
  toolset?: Toolset;
  logger?: Logger;
  /** Connect to configured MCP servers. Default true. */
  mcp?: boolean;
  runner?: Omit<ToolRunnerOptions, "registry" | "workspace" | "approval" | "rules">;
  /** web_search's backend instead of Brave (spec 000's ISearchProvider). */
  searchProvider?: SearchProvider;
}

/** Everything needed to serve tool calls: configuration, the registry (built-ins and MCP tools) and a runner. */
export interface Session {
  loaded: LoadedConfig;
  registry: ToolRegistry;
  runner: ToolRunner;
  /** The MCP servers from configuration, when any were configured and `mcp` was not false. */
  mcp?: McpManager;
  /** Stops MCP and language servers and flushes the audit log. */
  close(): Promise<void>;
}

/** Opens a session from configuration, the way the `tackle` command does. */
export async function openSession(options: SessionOptions = {}): Promise<Session> {
  const logger = options.logger ?? createLogger("warn");
  const loaded = loadConfig({
    ...(options.configFile ? { file: options.configFile } : {}),
    ...(options.workspace ? { workspace: options.workspace } : {}),
  });
  const closers: Array<() => Promise<void>> = [];
  const registry = await createRegistry(loaded, {
    logger,
    onClose: (c) => closers.push(c),
    ...(options.toolset ? { toolset: options.toolset } : {}),
    ...(options.searchProvider ? { searchProvider: options.searchProvider } : {}),
  });
  // MCP servers from configuration are connected here (src/mcp).
  let mcp: McpManager | undefined;
  const servers = loaded.config.mcpServers;
  if (options.mcp !== false && servers && Object.keys(servers).length > 0) {
    // The MCP client libraries load only when servers are configured.
    const { McpManager } = await import("./mcp/client/manager.js");
    mcp = new McpManager(servers, { logger, registry, baseDir: loaded.workspace, vars: loaded.env });
    const manager = mcp;
    closers.push(() => manager.close());
    // Each server is isolated inside connectAll; nothing here may stop the session opening.
    await manager.connectAll().catch((err: unknown) => logger.error(`Connecting MCP servers failed: ${(err as Error).message}`));
  }
  const runner = new ToolRunner({
    registry,
    workspace: loaded.workspace,
    approval: options.approval ?? (loaded.config.approval as ApprovalMode | undefined) ?? "safe",
    ...(loaded.config.permissions ? { rules: loaded.config.permissions } : {}),
    // A relative log path belongs to the workspace, not to wherever tackle was started.
    ...(loaded.config.log ? { log: path.resolve(loaded.workspace, loaded.config.log) } : {}),
    ...(loaded.config.timeoutMs ? { timeoutMs: loaded.config.timeoutMs } : {}),
    ...(loaded.config.maxOutputChars ? { maxOutputChars: loaded.config.maxOutputChars } : {}),
    logger,
    ...options.runner,
  });
  return {
    loaded,
    registry,
    runner,
    ...(mcp ? { mcp } : {}),
    async close() {
      await Promise.allSettled(closers.map((c) => c()));
      await runner.close();
    },
  };
}
