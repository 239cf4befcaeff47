/**
 * The MCP client side of tackle: connecting to the servers in `mcpServers` and proxying their
 * tools (spec 000's McpManager, McpServerConfig, McpToolProxy).
 */
export { McpManager, type McpManagerOptions, type McpServerStatus } from "./manager.js";
export { McpConnection, DEFAULT_BACKOFF, type BackoffOptions, type ConnectionState, type McpConnectionOptions } from "./connection.js";
export { McpToolProxy, type McpTool, type McpToolTarget } from "./proxy.js";
export { proxyToolName, hashedToolName, sanitizeName, NAME_SEPARATOR, MAX_TOOL_NAME } from "./naming.js";
export { resolveServer, expandVars, DEFAULT_CALL_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS, type ResolvedServer } from "./client-config.js";
export { McpServerEntrySchema, type McpServerEntry } from "../../config/mcp-server-entry.js";
export { StdioProcessTransport, type StdioProcessOptions } from "./stdio-process.js";
export { toToolResult } from "./call-result.js";
