export * from "./anthropic.js";
export * from "./openai.js";
export * from "./gemini.js";
export * from "./mcp.js";
export { type ToolSource } from "./tool-list.js";
export { toAiSdkTools, type AiSdkTool, type AiSdkSchema, type AiSdkToolsOptions, type RunsTools } from "./ai-sdk.js";
