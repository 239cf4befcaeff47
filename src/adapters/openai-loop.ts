import {
  fromOpenAIChatToolCalls,
  fromOpenAIResponsesOutput,
  toOpenAIChatToolMessage,
  toOpenAIChatTools,
  toOpenAIResponsesOutput,
  toOpenAIResponsesTools,
  type OpenAIChatTool,
  type OpenAIResponsesTool,
} from "./openai.js";
import { DEFAULT_MAX_STEPS, runTurn, type AgentLoopEnd, type AgentLoopOptions, type RunsTools } from "./runs-tools.js";

/** A Chat Completions message, as much of it as the loop reads and writes. */
export interface OpenAIChatLoopMessage {
  role: string;
  content?: unknown;
  tool_calls?: ReadonlyArray<{ type: string; id: string }> | null;
  tool_call_id?: string;
}

/**
 * The part of the OpenAI SDK client the Chat Completions loop uses (`new OpenAI()` has it); the
 * request is the SDK's own type (`never` accepts it), built from yours and `toOpenAIChatTools`.
 */
export interface OpenAIChatClient {
  chat: {
    completions: {
      create(
        body: never,
        options?: { signal?: AbortSignal },
      ): PromiseLike<{ choices: ReadonlyArray<{ message: OpenAIChatLoopMessage; finish_reason: string | null }> }>;
    };
  };
}

/** The part of the OpenAI SDK client the Responses loop uses. */
export interface OpenAIResponsesClient {
  responses: {
    create(body: never, options?: { signal?: AbortSignal }): PromiseLike<{ output: ReadonlyArray<{ type: string }>; output_text?: string }>;
  };
}

/**
 * Runs an OpenAI Chat Completions conversation to its end: tool calls go through the runner,
 * `tool` messages go back, until the model answers without calling tools or `maxSteps` turns
 * have passed. Returns the whole conversation.
 */
export async function runOpenAIChatLoop(
  client: OpenAIChatClient,
  runner: RunsTools,
  request: { model: string; messages: OpenAIChatLoopMessage[] } & Record<string, unknown>,
  options: AgentLoopOptions = {},
): Promise<AgentLoopEnd & { messages: OpenAIChatLoopMessage[] }> {
  const messages = [...request.messages];
  const tools = toOpenAIChatTools(runner.registry);
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  for (let step = 1; ; step++) {
    const body: { messages: OpenAIChatLoopMessage[]; tools: OpenAIChatTool[] } = { ...request, messages, tools };
    const response = await client.chat.completions.create(body as never, options.signal ? { signal: options.signal } : {});
    const message = response.choices[0]?.message;
    if (!message) throw new Error("The model answered with no message.");
    messages.push(message);
    const calls = fromOpenAIChatToolCalls(message.tool_calls);
    if (calls.length === 0) return { messages, stopped: "done", steps: step };
    const outcomes = await runTurn(runner, calls, options);
    messages.push(...outcomes.map(toOpenAIChatToolMessage));
    if (step >= maxSteps) return { messages, stopped: "max-steps", steps: step };
  }
}

/**
 * Runs an OpenAI Responses conversation to its end: function calls go through the runner and
 * `function_call_output` items go back, until the model answers without calling functions or
 * `maxSteps` turns have passed. Returns every input and output item, and the last text.
 */
export async function runOpenAIResponsesLoop(
  client: OpenAIResponsesClient,
  runner: RunsTools,
  request: { model: string; input: unknown[] } & Record<string, unknown>,
  options: AgentLoopOptions = {},
): Promise<AgentLoopEnd & { input: unknown[]; text: string }> {
  const input = [...request.input];
  const tools = toOpenAIResponsesTools(runner.registry);
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  for (let step = 1; ; step++) {
    const body: { input: unknown[]; tools: OpenAIResponsesTool[] } = { ...request, input, tools };
    const response = await client.responses.create(body as never, options.signal ? { signal: options.signal } : {});
    input.push(...response.output);
    const calls = fromOpenAIResponsesOutput(response.output);
    if (calls.length === 0) return { input, text: response.output_text ?? "", stopped: "done", steps: step };
    const outcomes = await runTurn(runner, calls, options);
    input.push(...outcomes.map(toOpenAIResponsesOutput));
    if (step >= maxSteps) return { input, text: response.output_text ?? "", stopped: "max-steps", steps: step };
  }
}
