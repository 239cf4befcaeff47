import type { ToolOutcome } from "../core/result.js";
import type { ToolCall } from "../core/tool-call.js";
import { toolsOf, type ToolSource } from "./tool-list.js";

/** Anthropic Messages API `tools` entry. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: { type: "object"; [key: string]: unknown };
}

/** A `tool_use` block from an assistant message. */
export interface AnthropicToolUse {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

type AnthropicResultContent =
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"; data: string } };

/** A `tool_result` block for the next user message. */
export interface AnthropicToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: string | AnthropicResultContent[];
  is_error?: boolean;
}

/** Tool definitions for `messages.create({ tools })`. */
export function toAnthropicTools(source: ToolSource): AnthropicTool[] {
  return toolsOf(source).map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: { ...t.inputSchema, type: "object" },
  }));
}

/** The tool calls in an assistant message's content. */
export function fromAnthropicToolUses(content: ReadonlyArray<{ type: string }>): ToolCall[] {
  return content.filter((b): b is AnthropicToolUse => b.type === "tool_use").map((b) => ({ id: b.id, name: b.name, args: b.input ?? {} }));
}

const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/** An outcome as a `tool_result` block; errors and rejections carry `is_error`. */
export function toAnthropicToolResult(outcome: ToolOutcome): AnthropicToolResult {
  const images = (outcome.blocks ?? []).flatMap((b): AnthropicResultContent[] =>
    b.type === "image" && IMAGE_TYPES.has(b.mimeType)
      ? [{ type: "image", source: { type: "base64", media_type: b.mimeType as "image/png", data: b.data } }]
      : [],
  );
  return {
    type: "tool_result",
    tool_use_id: outcome.toolCallId,
    content: images.length ? [{ type: "text", text: outcome.content }, ...images] : outcome.content,
    ...(outcome.status === "success" ? {} : { is_error: true }),
  };
}
