/**
 * tackle: a tool system for AI agents. Define tools, register them, run model tool calls with
 * validation, approval, safe execution and logging, and export them to any model API or MCP.
 */
import { setDefaultWorkspace } from "./core/tool-workspace.js";
import { Workspace } from "./workspace/workspace.js";

// A direct `tool.execute(args)` with no workspace in its options runs in the current folder (or
// `cwd`): the library's entry says so here, once, rather than a module doing it when imported.
setDefaultWorkspace((cwd) => Workspace.open(cwd));

export { defineTool, type ToolSpec } from "./core/define-tool.js";
export { BaseTool } from "./compat/base-tool.js";
export { SchemaTool } from "./core/schema-tool.js";
export { CallMemo, perCall } from "./core/call-memo.js";
export type { ParameterAliases } from "./core/parameter-aliases.js";
export { JsonSchemaTool, type PlainTool } from "./compat/json-schema-tool.js";
export { ToolRegistry, toTool, type ToolLike, type RegisterOptions, type RegistryChange } from "./registry/registry.js";
export type {
  AnyTool,
  Tool,
  ToolContext,
  ToolExecutionOptions,
  ToolDefinition,
  ToolConfirmation,
  ToolScope,
  ToolAccess,
  Assessment,
  Progress,
  JsonSchema,
  ValidationResult,
  ValidationIssue,
} from "./core/tool.js";
export type { ToolExecutionResult, ToolOutcome, OutcomeStatus, ApprovedBy, ContentBlock, ToolResult } from "./core/result.js";
export { toToolResult } from "./core/result.js";
export type { ResultTool, ToolResultValue } from "./compat/result-tool.js";
export { ToolError, ERROR_CODES, type ErrorCode, type ToolErrorCode } from "./core/errors.js";
export { annotationsFor, effectFromAnnotations, EFFECTS, type Effect, type ToolAnnotations } from "./core/effect.js";
export { toJsonSchema } from "./core/schema.js";
export { loadDescription } from "./core/description.js";
export { createLogger, type Logger } from "./core/logger.js";
export { ToolRunner, type ToolCall, type RunOptions, type ToolRunnerOptions } from "./runtime/runner.js";
export { APPROVAL_MODES, type ApprovalMode } from "./runtime/policy.js";
export type { PermissionRules } from "./runtime/rules.js";
export { rejectingApprover, type Approver, type ApprovalRequest, type ApprovalResponse } from "./runtime/approver.js";
export type { ToolEvent, ToolEventType } from "./runtime/events.js";
export { AuditLog, type AuditRecord } from "./runtime/audit-log.js";
export type { ToolMetrics } from "./runtime/metrics.js";
export { markUntrusted } from "./core/untrusted.js";
export { Workspace, type ResolvedPath } from "./workspace/workspace.js";
export { isSensitivePath } from "./workspace/sensitive.js";
export { loadConfig, parseConfig, type TackleConfig, type LoadedConfig, type McpServerConfig } from "./config/config.js";
export { createRegistry, builtinTools, type CreateRegistryOptions } from "./tools/builtin.js";
export { createBuiltinTools } from "./tools/builtin-tools.js";
export type { GroupContext, ToolGroup } from "./tools/group.js";
export { TOOLSETS, type Toolset } from "./tools/toolsets.js";
export { TOOL } from "./tools/names.js";
export { toSearchProvider, type SearchProvider, type SearchResult, type SpecSearchProvider } from "./tools/web/search-provider.js";
export { BraveSearchProvider, type BraveOptions } from "./tools/web/brave.js";
export { createWebSearchTool } from "./tools/web/web-search.js";
export { createWebFetchTool } from "./tools/web/web-fetch.js";
export { htmlToText } from "./net/html-to-text.js";
export { GmailParser, type MessagePart, type Attachment } from "./tools/google/gmail-parser.js";
export * from "./adapters/index.js";
export { openSession, type Session, type SessionOptions } from "./session.js";
export * from "./mcp/client/client.js";
