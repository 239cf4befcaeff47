import { describe, expect, it } from "vitest";
import { z } from "zod";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { Type, type FunctionDeclaration, type Part, type FunctionCall } from "@google/genai";
import type { Tool as McpTool, CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CallToolResultSchema, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { defineTool } from "../../src/core/define-tool.js";
import { ToolRegistry } from "../../src/registry/registry.js";
import { ToolRunner } from "../../src/runtime/runner.js";
import {
  fromAnthropicToolUses,
  fromGeminiFunctionCalls,
  fromOpenAIChatToolCalls,
  fromOpenAIResponsesOutput,
  toAnthropicToolResult,
  toAnthropicTools,
  toGeminiFunctionDeclarations,
  toGeminiFunctionResponse,
  toMcpCallToolResult,
  toMcpTools,
  toOpenAIChatToolMessage,
  toOpenAIChatTools,
  toOpenAIResponsesOutput,
  toOpenAIResponsesTools,
} from "../../src/adapters/index.js";
import type { ToolOutcome } from "../../src/core/result.js";
import { toGeminiSchema } from "../../src/adapters/gemini.js";

const registry = new ToolRegistry();
registry.register(
  defineTool({
    name: "find",
    title: "Find",
    description: "Finds things.",
    effect: "read",
    input: z.object({
      query: z.string().describe("What to find"),
      kind: z.enum(["file", "dir"]).optional(),
      limit: z.number().int().min(1).max(50).default(10),
      tags: z.array(z.string()).optional(),
      exact: z.literal("yes").optional(),
      maybe: z.string().nullable().optional(),
    }),
    output: z.object({ hits: z.array(z.string()) }),
    execute: async ({ query }) => ({ content: `found ${query}`, structured: { hits: [query] } }),
  }),
);
const runner = new ToolRunner({ registry });

const success: ToolOutcome = {
  status: "success",
  toolCallId: "call_1",
  toolName: "find",
  content: "found x",
  structured: { hits: ["x"] },
  executionTimeMs: 1,
  approvedBy: "auto",
  blocks: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
};
const failure: ToolOutcome = {
  status: "error",
  toolCallId: "call_2",
  toolName: "find",
  content: "Error [TIMEOUT]: slow",
  error: { code: "TIMEOUT", message: "slow", recoverable: true },
  executionTimeMs: 1,
};

describe("Anthropic Messages", () => {
  it("exports tools, reads tool_use blocks and writes tool_result blocks", async () => {
    const tools: Anthropic.Tool[] = toAnthropicTools(registry);
    expect(tools[0]).toMatchObject({ name: "find", description: "Finds things.", input_schema: { type: "object", required: ["query"] } });
    const content: Anthropic.ContentBlock[] = [
      { type: "text", text: "Let me look.", citations: null },
      { type: "tool_use", id: "toolu_1", name: "find", input: { query: "x" } },
    ];
    const calls = fromAnthropicToolUses(content);
    expect(calls).toEqual([{ id: "toolu_1", name: "find", args: { query: "x" } }]);
    const outcome = await runner.run(calls[0]!);
    const block: Anthropic.ToolResultBlockParam = toAnthropicToolResult(outcome);
    expect(block).toEqual({ type: "tool_result", tool_use_id: "toolu_1", content: "found x" });
    const withImage: Anthropic.ToolResultBlockParam = toAnthropicToolResult(success);
    expect(Array.isArray(withImage.content) && withImage.content[1]).toMatchObject({
      type: "image",
      source: { type: "base64", media_type: "image/png" },
    });
    expect(toAnthropicToolResult(failure).is_error).toBe(true);
  });
});

describe("OpenAI", () => {
  it("exports Chat Completions tools and round-trips tool calls", async () => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = toOpenAIChatTools(registry);
    expect(tools[0]).toMatchObject({ type: "function", function: { name: "find", parameters: { type: "object" } } });
    const toolCalls: OpenAI.Chat.ChatCompletionMessageToolCall[] = [
      { id: "call_a", type: "function", function: { name: "find", arguments: '{"query":"y"}' } },
      { id: "call_b", type: "function", function: { name: "find", arguments: "{not json" } },
    ];
    const calls = fromOpenAIChatToolCalls(toolCalls);
    expect(calls[0]).toEqual({ id: "call_a", name: "find", args: { query: "y" } });
    const outcomes = await runner.runAll(calls);
    expect(outcomes[1]!.error?.code).toBe("INVALID_ARGS");
    const message: OpenAI.Chat.ChatCompletionToolMessageParam = toOpenAIChatToolMessage(outcomes[0]!);
    expect(message).toEqual({ role: "tool", tool_call_id: "call_a", content: "found y" });
  });

  it("exports Responses API tools and round-trips function_call items", () => {
    const tools: OpenAI.Responses.FunctionTool[] = toOpenAIResponsesTools(registry);
    expect(tools[0]).toMatchObject({ type: "function", name: "find", strict: false });
    const output: OpenAI.Responses.ResponseOutputItem[] = [
      { type: "function_call", call_id: "fc_1", name: "find", arguments: '{"query":"z"}', id: "item_1", status: "completed" },
    ];
    expect(fromOpenAIResponsesOutput(output)).toEqual([{ id: "fc_1", name: "find", args: { query: "z" } }]);
    const item: OpenAI.Responses.ResponseInputItem.FunctionCallOutput = toOpenAIResponsesOutput({ ...success, toolCallId: "fc_1" });
    expect(item).toEqual({ type: "function_call_output", call_id: "fc_1", output: "found x" });
  });
});

describe("Gemini", () => {
  it("exports function declarations in Gemini's schema subset", () => {
    // The SDK types `type` as its string enum, which literals cannot satisfy in TypeScript; the
    // values are checked against that enum at run time instead.
    const decls = toGeminiFunctionDeclarations(registry) as unknown as FunctionDeclaration[];
    const params = decls[0]!.parameters!;
    const types = new Set<string>(Object.values(Type));
    const walk = (s: NonNullable<FunctionDeclaration["parameters"]>): void => {
      if (s.type) expect(types.has(s.type)).toBe(true);
      for (const child of Object.values(s.properties ?? {})) walk(child);
      if (s.items) walk(s.items);
    };
    walk(params);
    expect(params.type).toBe("OBJECT");
    expect(params.properties!.query).toEqual({ type: "STRING", description: "What to find" });
    expect(params.properties!.kind).toEqual({ type: "STRING", enum: ["file", "dir"] });
    expect(params.properties!.limit).toMatchObject({ type: "INTEGER", minimum: 1, maximum: 50, default: 10 });
    expect(params.properties!.tags).toEqual({ type: "ARRAY", items: { type: "STRING" } });
    expect(params.properties!.exact).toEqual({ type: "STRING", enum: ["yes"] });
    expect(params.properties!.maybe).toMatchObject({ type: "STRING", nullable: true });
    expect(JSON.stringify(params)).not.toMatch(/additionalProperties|\$schema|exclusiveMinimum/);
  });

  it("gives a type only for JSON Schema's own names: an MCP server's schema may name Object's properties", () => {
    for (const type of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      expect(toGeminiSchema({ type, description: "x" })).toEqual({ description: "x" });
    }
  });

  it("reads functionCalls and writes functionResponse parts", () => {
    const fc: FunctionCall[] = [
      { id: "g1", name: "find", args: { query: "q" } },
      { name: "find", args: {} },
    ];
    const calls = fromGeminiFunctionCalls(fc);
    expect(calls[0]).toEqual({ id: "g1", name: "find", args: { query: "q" } });
    expect(calls[1]!.id).toMatch(/^gemini_1_find$/);
    const parts = fromGeminiFunctionCalls([{ functionCall: { name: "find", args: { query: "p" } } }]);
    expect(parts[0]!.args).toEqual({ query: "p" });
    const ok: Part = toGeminiFunctionResponse({ ...success, toolCallId: "g1" });
    expect(ok.functionResponse).toMatchObject({ id: "g1", name: "find", response: { output: { text: "found x", hits: ["x"] } } });
    const bad: Part = toGeminiFunctionResponse({ ...failure, toolCallId: "gemini_0_find" });
    expect(bad.functionResponse!.id).toBeUndefined();
    expect(bad.functionResponse!.response).toMatchObject({ error: { code: "TIMEOUT" } });
  });
});

describe("MCP", () => {
  it("exports tools with annotations and output schema that the SDK accepts", () => {
    const tools: McpTool[] = toMcpTools(registry);
    expect(ToolSchema.parse(tools[0])).toBeTruthy();
    expect(tools[0]).toMatchObject({ name: "find", title: "Find", annotations: { readOnlyHint: true }, outputSchema: { type: "object" } });
  });

  it("turns outcomes into CallToolResults", () => {
    const ok = toMcpCallToolResult(success);
    const parsed: CallToolResult = CallToolResultSchema.parse(ok);
    expect(parsed).toEqual(ok);
    expect(ok).toMatchObject({ content: [{ type: "text", text: "found x" }, { type: "image" }], structuredContent: { hits: ["x"] } });
    expect(ok.isError).toBeUndefined();
    expect(toMcpCallToolResult(failure)).toMatchObject({ isError: true, content: [{ type: "text", text: "Error [TIMEOUT]: slow" }] });
  });
});
