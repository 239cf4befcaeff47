export * from "./anthropic.js";
export * from "./openai.js";
export * from "./gemini.js";
export * from "./mcp.js";
export { type ToolSource } from "./tool-list.js";
export { toAiSdkTools, type AiSdkTool, type AiSdkSchema, type AiSdkToolsOptions } from "./ai-sdk.js";
export type { RunsTools, CallOptions, AgentLoopOptions, AgentLoopEnd } from "./runs-tools.js";
export { runAnthropicLoop, type AnthropicMessagesClient, type AnthropicLoopMessage } from "./anthropic-loop.js";
export {
  runOpenAIChatLoop,
  runOpenAIResponsesLoop,
  type OpenAIChatClient,
  type OpenAIResponsesClient,
  type OpenAIChatLoopMessage,
} from "./openai-loop.js";
