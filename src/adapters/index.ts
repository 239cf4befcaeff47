export * from "./anthropic.js";
export * from "./openai.js";
export * from "./gemini.js";
export * from "./mcp.js";
export { type ToolSource } from "./tool-list.js";
