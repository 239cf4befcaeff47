import type { PlainTool } from "../../compat/json-schema-tool.js";
import type { JsonSchema, ToolContext } from "../../core/tool.js";
import type { ToolExecutionResult } from "../../core/result.js";
import { effectFromAnnotations, type Effect, type ToolAnnotations } from "../../core/effect.js";

/** A tool as an MCP server lists it (`tools/list`). */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations & Record<string, unknown>;
  [key: string]: unknown;
}

/** What a proxy calls through: one server's connection. */
export interface McpToolTarget {
  readonly name: string;
  callTool(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolExecutionResult>;
}

/**
 * Spec 000's McpToolProxy: one tool of an MCP server, as a plain tool with a JSON Schema (the
 * registry wraps it in a JsonSchemaTool, which validates arguments with ajv). It carries the
 * registry name (`{server}__{tool}`, sanitised) and keeps the server's own name for the call.
 *
 * Annotations come from the server and are untrusted: unless the server is `trusted` in
 * configuration, every tool is `execute` (asked about in `safe` mode), whatever it claims.
 */
export class McpToolProxy implements PlainTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly effect: Effect;
  readonly annotations?: ToolAnnotations;
  /** The server's name from configuration. */
  readonly serverName: string;
  /** The tool's name on its server, used for the call. */
  readonly originalName: string;
  readonly #target: McpToolTarget;

  constructor(target: McpToolTarget, tool: McpTool, name: string, options: { trusted?: boolean } = {}) {
    this.#target = target;
    this.name = name;
    this.serverName = target.name;
    this.originalName = tool.name;
    const title = tool.title ?? (typeof tool.annotations?.title === "string" ? tool.annotations.title : undefined);
    if (title) this.title = title;
    this.description = tool.description?.trim() ? tool.description : `The tool "${tool.name}" of the MCP server "${target.name}".`;
    this.inputSchema = isObject(tool.inputSchema) ? tool.inputSchema : { type: "object" };
    if (isObject(tool.outputSchema)) this.outputSchema = tool.outputSchema;
    if (options.trusted) {
      this.effect = effectFromAnnotations(tool.annotations);
      if (tool.annotations) this.annotations = pickAnnotations(tool.annotations, title);
    } else {
      // Left undefined, the annotations are derived from the effect: what tackle will do, not
      // what the server says about itself.
      this.effect = "execute";
    }
  }

  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolExecutionResult> {
    return this.#target.callTool(this.originalName, args, ctx);
  }
}

function isObject(v: unknown): v is JsonSchema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function pickAnnotations(a: ToolAnnotations & Record<string, unknown>, title: string | undefined): ToolAnnotations {
  const out: ToolAnnotations = {};
  if (title) out.title = title;
  for (const key of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
    if (typeof a[key] === "boolean") out[key] = a[key];
  }
  return out;
}
