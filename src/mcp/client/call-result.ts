import type { ContentBlock, ToolExecutionResult } from "../../core/result.js";
import { markUntrusted } from "../../core/untrusted.js";

/** An MCP content block as servers send it (2025-06-18 shapes; unknown types are tolerated). */
type McpBlock = { type: string; [key: string]: unknown };

/** What `tools/call` returns: the current shape, or the 2024-10-07 `toolResult` one. */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
  toolResult?: unknown;
  _meta?: unknown;
  [key: string]: unknown;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function sizeOf(base64: string): string {
  const bytes = Math.floor((base64.length * 3) / 4);
  return bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MB`
    : bytes >= 1024
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${bytes} bytes`;
}

/**
 * Converts one block: the text the model reads for it, and the block kept beside the text
 * (images, audio and resources are never dropped, only described in the text).
 */
function convertBlock(block: McpBlock): { text?: string; block?: ContentBlock } {
  switch (block.type) {
    case "text":
      return { text: str(block.text) ?? "" };
    case "image":
    case "audio": {
      const data = str(block.data) ?? "";
      const mimeType = str(block.mimeType) ?? "application/octet-stream";
      return { text: `[${block.type} ${mimeType}, ${sizeOf(data)}]`, block: { type: block.type, data, mimeType } };
    }
    case "resource": {
      const r = (typeof block.resource === "object" && block.resource !== null ? block.resource : {}) as Record<string, unknown>;
      const uri = str(r.uri) ?? "";
      const resource: { uri: string; mimeType?: string; text?: string; blob?: string } = { uri };
      if (str(r.mimeType)) resource.mimeType = str(r.mimeType)!;
      if (str(r.text) !== undefined) resource.text = str(r.text)!;
      if (str(r.blob) !== undefined) resource.blob = str(r.blob)!;
      const text =
        resource.text !== undefined
          ? `[resource ${uri}]\n${resource.text}`
          : `[resource ${uri}${resource.mimeType ? ` ${resource.mimeType}` : ""}${resource.blob ? `, ${sizeOf(resource.blob)}` : ""}]`;
      return { text, block: { type: "resource", resource } };
    }
    case "resource_link": {
      const uri = str(block.uri) ?? "";
      const name = str(block.name) ?? uri;
      const link: ContentBlock = { type: "resource_link", uri, name };
      if (str(block.mimeType)) link.mimeType = str(block.mimeType)!;
      if (str(block.description)) link.description = str(block.description)!;
      return { text: `[resource link: ${name} <${uri}>${link.description ? ` ${link.description}` : ""}]`, block: link };
    }
    default:
      // A block type from a newer protocol: its JSON is better than silence.
      return { text: JSON.stringify(block) };
  }
}

/**
 * Turns an MCP `tools/call` result into a tackle result: text blocks joined, other blocks kept
 * in `blocks` (and named in the text), `structuredContent` as `structured`, `isError` as an error
 * outcome. The text is marked as coming from the server: the runner wraps successful output as
 * untrusted content; error text is wrapped here, because the runner does not wrap errors.
 */
export function toToolResult(result: McpCallResult, server: string, tool: string): ToolExecutionResult {
  const source = `MCP server ${server}`;
  const metadata: Record<string, unknown> = { mcpServer: server, mcpTool: tool };
  if ("toolResult" in result && !("content" in result)) {
    const value = result.toolResult;
    return {
      content: typeof value === "string" ? value : JSON.stringify(value, null, 2),
      structured: value,
      metadata,
      untrusted: { source },
    };
  }
  const texts: string[] = [];
  const blocks: ContentBlock[] = [];
  for (const raw of Array.isArray(result.content) ? result.content : []) {
    if (typeof raw !== "object" || raw === null || typeof (raw as McpBlock).type !== "string") continue;
    const converted = convertBlock(raw as McpBlock);
    if (converted.text !== undefined) texts.push(converted.text);
    if (converted.block) blocks.push(converted.block);
  }
  let content = texts.join("\n");
  const structured = result.structuredContent;
  if (!content && structured !== undefined) content = JSON.stringify(structured, null, 2);
  if (!content && result.isError !== true) content = blocks.length ? "" : "(the tool returned no content)";
  const out: ToolExecutionResult = { content, metadata, untrusted: { source } };
  if (structured !== undefined) out.structured = structured;
  if (blocks.length) out.blocks = blocks;
  if (result.isError === true) {
    out.isError = true;
    out.content = markUntrusted(content || `The tool ${tool} reported an error without a message.`, source);
  }
  return out;
}
