import type { ContentBlock, ToolOutcome } from "../core/result.js";
import type { AnyTool } from "../core/tool.js";
import type { ToolAnnotations } from "../core/effect.js";
import { toolsOf, type ToolSource } from "./tool-list.js";

/** An MCP `Tool` as tools/list returns it. */
export interface McpToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  outputSchema?: { type: "object"; [key: string]: unknown };
  annotations: ToolAnnotations;
}

/** An MCP `CallToolResult`. */
export interface McpCallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

export function toMcpTool(tool: AnyTool): McpToolDefinition {
  const output = tool.outputSchema;
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: { ...tool.inputSchema, type: "object" },
    // MCP requires an object output schema; other shapes are not advertised.
    ...(output && output.type === "object" ? { outputSchema: output as McpToolDefinition["inputSchema"] } : {}),
    annotations: tool.annotations,
  };
}

export function toMcpTools(source: ToolSource): McpToolDefinition[] {
  return toolsOf(source).map(toMcpTool);
}

/** An outcome as a tools/call result; anything but success is `isError`. */
export function toMcpCallToolResult(outcome: ToolOutcome): McpCallToolResult {
  const text = { type: "text" as const, text: outcome.content };
  // Assigned rather than spread: this runs for every call an MCP client makes.
  const result: McpCallToolResult = { content: outcome.blocks?.length ? [text, ...outcome.blocks] : [text] };
  const structured = outcome.structured;
  const success = outcome.status === "success";
  if (success && structured && typeof structured === "object" && !Array.isArray(structured)) {
    result.structuredContent = structured as Record<string, unknown>;
  }
  if (!success) result.isError = true;
  return result;
}
