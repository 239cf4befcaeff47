import type { ToolOutcome } from "../core/result.js";
import type { ToolCall } from "../core/tool-call.js";
import { parseArguments, toolsOf, type ToolSource } from "./tool-list.js";

/** Chat Completions `tools` entry. */
export interface OpenAIChatTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Responses API `tools` entry. */
export interface OpenAIResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

/** A Chat Completions assistant `tool_calls` entry. */
export interface OpenAIChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A Responses API `function_call` output item. */
export interface OpenAIFunctionCallItem {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
}

export function toOpenAIChatTools(source: ToolSource): OpenAIChatTool[] {
  return toolsOf(source).map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }));
}

/** Responses API function tools. Not strict: strict mode needs every property required. */
export function toOpenAIResponsesTools(source: ToolSource): OpenAIResponsesTool[] {
  return toolsOf(source).map((t) => ({
    type: "function",
    name: t.name,
    description: t.description,
    parameters: t.inputSchema,
    strict: false,
  }));
}

export function fromOpenAIChatToolCalls(calls: ReadonlyArray<{ type: string; id: string }> | null | undefined): ToolCall[] {
  return (calls ?? [])
    .filter((c): c is OpenAIChatToolCall => c.type === "function")
    .map((c) => ({ id: c.id, name: c.function.name, args: parseArguments(c.function.arguments) }));
}

/** The function calls among a Responses API `output`. */
export function fromOpenAIResponsesOutput(output: ReadonlyArray<{ type: string }>): ToolCall[] {
  return output
    .filter((i): i is OpenAIFunctionCallItem => i.type === "function_call")
    .map((i) => ({ id: i.call_id, name: i.name, args: parseArguments(i.arguments) }));
}

/** A Chat Completions `tool` message answering one call. */
export function toOpenAIChatToolMessage(outcome: ToolOutcome): { role: "tool"; tool_call_id: string; content: string } {
  return { role: "tool", tool_call_id: outcome.toolCallId, content: outcome.content };
}

/** A Responses API `function_call_output` input item. */
export function toOpenAIResponsesOutput(outcome: ToolOutcome): { type: "function_call_output"; call_id: string; output: string } {
  return { type: "function_call_output", call_id: outcome.toolCallId, output: outcome.content };
}
