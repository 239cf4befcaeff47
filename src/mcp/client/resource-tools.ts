import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { ToolError } from "../../core/errors.js";
import { formatCount } from "../../core/format-count.js";
import type { ContentBlock, ToolExecutionResult } from "../../core/result.js";
import type { AnyTool } from "../../core/tool.js";
import type { McpConnection, McpResourceContents } from "./connection.js";

/** The resource and prompt tools' names. */
export const RESOURCE_TOOL_NAMES = ["mcp_resources", "mcp_read_resource", "mcp_prompts", "mcp_get_prompt"] as const;

/** Largest image passed on as an image; other binary contents are described. */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** Where the tools find servers: the manager's connections. */
export interface ConnectionSource {
  connections(): McpConnection[];
}

const serverArg = z.string().min(1).describe("The MCP server's name, as configured in mcpServers.");

function pick(source: ConnectionSource, server: string): McpConnection {
  const all = source.connections();
  const found = all.find((c) => c.name === server);
  if (!found) {
    const names = all.map((c) => `"${c.name}"`).join(", ");
    throw new ToolError("INVALID_ARGS", `There is no MCP server "${server}". ${names ? `Configured: ${names}.` : "None is configured."}`);
  }
  return found;
}

/** The servers a listing covers: one, or every one ready (those not ready are named). */
function servers(source: ConnectionSource, server: string | undefined): { ready: McpConnection[]; notReady: string[] } {
  if (server !== undefined) return { ready: [pick(source, server)], notReady: [] };
  const all = source.connections();
  return {
    ready: all.filter((c) => c.state === "ready"),
    notReady: all.filter((c) => c.state !== "ready").map((c) => `${c.name} (${c.state})`),
  };
}

const sized = (size: number | undefined) => (size === undefined ? "" : `, ${formatCount(size)} bytes`);
const said = (description: string | undefined) => (description ? `: ${description.replace(/\s+/g, " ").slice(0, 300)}` : "");

/**
 * One listing over the servers (one, or every one ready): each server's part as `list` words it,
 * or that it offers none of `what`; servers not connected are named. Marked untrusted.
 */
async function listing(
  source: ConnectionSource,
  server: string | undefined,
  what: "resources" | "prompts",
  next: string,
  list: (c: McpConnection) => Promise<{ data: Record<string, unknown>; lines: string[] }>,
): Promise<ToolExecutionResult> {
  const { ready, notReady } = servers(source, server);
  const parts: string[] = [];
  const structured: Array<Record<string, unknown>> = [];
  for (const c of ready) {
    const { data, lines } = await list(c);
    structured.push({ server: c.name, ...data });
    parts.push(c.offers[what] ? lines.join("\n") : `Server "${c.name}" offers no ${what}.`);
  }
  if (notReady.length) parts.push(`Not connected: ${notReady.join(", ")}.`);
  if (!ready.length && !notReady.length) parts.push("No MCP server is configured.");
  return {
    content: `${parts.join("\n\n")}\n${next}`,
    structured: { servers: structured },
    untrusted: { source: server ? `MCP server ${server}` : "MCP servers" },
  };
}

/**
 * Tools over what configured MCP servers offer besides tools: their resources (listed and read)
 * and prompts (listed and filled in). Text from a server is marked as untrusted, as tool results are.
 */
export function createResourceTools(source: ConnectionSource): AnyTool[] {
  const listResources = defineTool({
    name: "mcp_resources",
    title: "List MCP resources",
    description:
      "Lists the resources (files, records, documents) and resource templates that the configured MCP servers offer. " +
      "Read one with mcp_read_resource. Give `server` to list one server's.",
    input: z.object({ server: serverArg.optional() }),
    effect: "read",
    execute: (args, ctx) =>
      listing(source, args.server, "resources", "Read one with mcp_read_resource { server, uri }.", async (c) => {
        const { resources, templates } = await c.resources(ctx.signal);
        const lines = [`Server "${c.name}": ${formatCount(resources.length)} resources, ${formatCount(templates.length)} templates.`];
        for (const r of resources)
          lines.push(`- ${r.uri} — ${r.title ?? r.name} (${r.mimeType ?? "type not given"}${sized(r.size)})${said(r.description)}`);
        if (templates.length) lines.push("Templates (fill in the {braces} to make a uri):");
        for (const t of templates) lines.push(`- ${t.uriTemplate} — ${t.title ?? t.name}${said(t.description)}`);
        return { data: { resources, templates }, lines };
      }),
  });

  const readResource = defineTool({
    name: "mcp_read_resource",
    title: "Read an MCP resource",
    description:
      "Reads one resource of an MCP server by its uri (from mcp_resources, or a template filled in). Text comes back as text, images as images.",
    input: z.object({ server: serverArg, uri: z.string().min(1).max(8192).describe("The resource's uri.") }),
    effect: "read",
    execute: async (args, ctx): Promise<ToolExecutionResult> => {
      const contents = await pick(source, args.server).readResource(args.uri, ctx.signal);
      const texts: string[] = [];
      const blocks: ContentBlock[] = [];
      for (const part of contents) {
        const head = contents.length > 1 ? `--- ${part.uri}${part.mimeType ? ` (${part.mimeType})` : ""} ---\n` : "";
        if (part.text !== undefined) texts.push(head + part.text);
        else if (part.blob !== undefined) texts.push(head + describeBlob(part, blocks));
      }
      if (!contents.length) texts.push(`The server returned no contents for ${args.uri}.`);
      return {
        content: texts.join("\n\n"),
        ...(blocks.length ? { blocks } : {}),
        structured: {
          contents: contents.map((c) => ({ uri: c.uri, mimeType: c.mimeType, ...(c.text !== undefined ? { text: c.text } : {}) })),
        },
        metadata: { mcpServer: args.server, uri: args.uri },
        untrusted: { source: `MCP server ${args.server}` },
      };
    },
  });

  const listPrompts = defineTool({
    name: "mcp_prompts",
    title: "List MCP prompts",
    description:
      "Lists the prompts (ready-made instructions with arguments) that the configured MCP servers offer. Fill one in with mcp_get_prompt.",
    input: z.object({ server: serverArg.optional() }),
    effect: "read",
    execute: (args, ctx) =>
      listing(source, args.server, "prompts", "Fill one in with mcp_get_prompt { server, name, arguments }.", async (c) => {
        const prompts = await c.prompts(ctx.signal);
        const lines = [`Server "${c.name}": ${formatCount(prompts.length)} prompts.`];
        for (const p of prompts) {
          const params = (p.arguments ?? []).map((a) => `${a.name}${a.required ? "" : "?"}`).join(", ");
          lines.push(`- ${p.name}(${params})${said(p.description)}`);
        }
        return { data: { prompts }, lines };
      }),
  });

  const getPrompt = defineTool({
    name: "mcp_get_prompt",
    title: "Get an MCP prompt",
    description: "Fills in one prompt of an MCP server with its arguments and returns its messages.",
    input: z.object({
      server: serverArg,
      name: z.string().min(1).describe("The prompt's name, from mcp_prompts."),
      arguments: z.record(z.string(), z.string()).optional().describe("The prompt's arguments, each a string."),
    }),
    effect: "read",
    execute: async (args, ctx): Promise<ToolExecutionResult> => {
      const result = await pick(source, args.server).getPrompt(args.name, args.arguments ?? {}, ctx.signal);
      const messages = result.messages.map((m) => {
        const c = m.content;
        const body =
          c.type === "text"
            ? (c.text ?? "")
            : c.type === "resource" && c.resource?.text !== undefined
              ? c.resource.text
              : `(${c.type} content)`;
        return `[${m.role}]\n${body}`;
      });
      return {
        content: `${result.description ? `${result.description}\n\n` : ""}${messages.join("\n\n")}`,
        structured: result,
        metadata: { mcpServer: args.server, prompt: args.name },
        untrusted: { source: `MCP server ${args.server}` },
      };
    },
  });
  return [listResources, readResource, listPrompts, getPrompt];
}

/** A binary part: an image attached when small enough, anything else described. */
function describeBlob(part: McpResourceContents, blocks: ContentBlock[]): string {
  const bytes = Math.floor((part.blob!.length * 3) / 4);
  if (part.mimeType?.startsWith("image/") && bytes <= MAX_IMAGE_BYTES) {
    blocks.push({ type: "image", data: part.blob!, mimeType: part.mimeType });
    return `${part.uri}: an image (${part.mimeType}, ${formatCount(bytes)} bytes), attached.`;
  }
  return `${part.uri}: ${formatCount(bytes)} bytes of ${part.mimeType ?? "binary data"}, not shown as text.`;
}
