import {
  fromAnthropicToolUses,
  toAnthropicToolResult,
  toAnthropicTools,
  type AnthropicTool,
  type AnthropicToolResult,
} from "./anthropic.js";
import { DEFAULT_MAX_STEPS, runTurn, type AgentLoopEnd, type AgentLoopOptions, type RunsTools } from "./runs-tools.js";

type AnthropicRequest = { model: string; max_tokens: number; messages: AnthropicLoopMessage[]; tools: AnthropicTool[] } & Record<
  string,
  unknown
>;

/** A Messages API message, as much of it as the loop reads and writes. */
export interface AnthropicLoopMessage {
  role: "user" | "assistant";
  content: string | ReadonlyArray<{ type: string }> | AnthropicToolResult[];
}

/**
 * The part of the Anthropic SDK client the loop uses (`new Anthropic()` has it). The request is
 * typed by the SDK itself (`never` here accepts any SDK's own parameter type); the loop builds it
 * from your request, its messages and `toAnthropicTools`.
 */
export interface AnthropicMessagesClient {
  messages: {
    create(
      body: never,
      options?: { signal?: AbortSignal },
    ): PromiseLike<{ content: ReadonlyArray<{ type: string }>; stop_reason: string | null }>;
  };
}

/**
 * Runs an Anthropic Messages conversation to its end: the model's tool calls go through the
 * runner (validation, policy, approval, caps, audit), their results go back, until the model
 * stops calling tools or `maxSteps` turns have passed. Returns the whole conversation.
 *
 * @example
 * const { messages } = await runAnthropicLoop(new Anthropic(), runner, { model, max_tokens: 1024, messages: [{ role: "user", content: "..." }] });
 */
export async function runAnthropicLoop(
  client: AnthropicMessagesClient,
  runner: RunsTools,
  request: { model: string; max_tokens: number; messages: AnthropicLoopMessage[] } & Record<string, unknown>,
  options: AgentLoopOptions = {},
): Promise<AgentLoopEnd & { messages: AnthropicLoopMessage[] }> {
  const messages = [...request.messages];
  const tools = toAnthropicTools(runner.registry);
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  for (let step = 1; ; step++) {
    const body: AnthropicRequest = { ...request, messages, tools };
    const response = await client.messages.create(body as never, options.signal ? { signal: options.signal } : {});
    messages.push({ role: "assistant", content: response.content });
    const calls = fromAnthropicToolUses(response.content);
    if (calls.length === 0 || response.stop_reason !== "tool_use") return { messages, stopped: "done", steps: step };
    const outcomes = await runTurn(runner, calls, options);
    messages.push({ role: "user", content: outcomes.map(toAnthropicToolResult) });
    if (step >= maxSteps) return { messages, stopped: "max-steps", steps: step };
  }
}
