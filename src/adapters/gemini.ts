import type { ToolOutcome } from "../core/result.js";
import type { JsonSchema } from "../core/tool.js";
import type { ToolCall } from "../core/tool-call.js";
import { toolsOf, type ToolSource } from "./tool-list.js";

/** Gemini's OpenAPI-subset schema type names. */
type GeminiType = "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT" | "NULL";

/** Gemini `Schema` (the subset `functionDeclarations[].parameters` accepts). */
export interface GeminiSchema {
  type?: GeminiType;
  format?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  items?: GeminiSchema;
  anyOf?: GeminiSchema[];
  minItems?: string;
  maxItems?: string;
  minLength?: string;
  maxLength?: string;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  default?: unknown;
  title?: string;
}

export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters: GeminiSchema;
}

export interface GeminiFunctionCall {
  id?: string;
  name?: string;
  args?: Record<string, unknown>;
}

export interface GeminiFunctionResponsePart {
  functionResponse: { id?: string; name: string; response: Record<string, unknown> };
}

const TYPES: Record<string, GeminiType> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT",
  null: "NULL",
};

/** Gemini's formats for strings; others are dropped rather than rejected by the API. */
const STRING_FORMATS = new Set(["enum", "date-time"]);

/** Converts JSON Schema to Gemini's subset: unsupported keywords are dropped, not passed on to fail. */
export function toGeminiSchema(schema: JsonSchema): GeminiSchema {
  const out: GeminiSchema = {};
  let type = schema.type as string | string[] | undefined;
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== "null");
    if (nonNull.length < type.length) out.nullable = true;
    if (nonNull.length === 1) type = nonNull[0];
    else {
      out.anyOf = nonNull.map((t) => toGeminiSchema({ ...schema, type: t }));
      type = undefined;
    }
  }
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (union) {
    const nonNull = union.filter((s) => s.type !== "null");
    if (nonNull.length < union.length) out.nullable = true;
    if (nonNull.length === 1) Object.assign(out, toGeminiSchema(nonNull[0]!));
    else out.anyOf = nonNull.map(toGeminiSchema);
  }
  // Its own entries only: a schema from an MCP server may say "type": "constructor".
  if (typeof type === "string" && Object.hasOwn(TYPES, type)) out.type = TYPES[type];
  if (typeof schema.description === "string") out.description = schema.description;
  if (typeof schema.title === "string") out.title = schema.title;
  if (schema.const !== undefined && typeof schema.const === "string") {
    out.type = "STRING";
    out.enum = [schema.const];
  }
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === "string")) {
    out.type = "STRING";
    out.enum = schema.enum as string[];
  }
  if (typeof schema.format === "string" && out.type === "STRING" && STRING_FORMATS.has(schema.format)) out.format = schema.format;
  if (typeof schema.pattern === "string") out.pattern = schema.pattern;
  for (const key of ["minimum", "maximum"] as const) if (typeof schema[key] === "number") out[key] = schema[key] as number;
  for (const key of ["minItems", "maxItems", "minLength", "maxLength"] as const) {
    if (typeof schema[key] === "number") out[key] = String(schema[key]);
  }
  if (schema.default !== undefined) out.default = schema.default;
  if (schema.properties && typeof schema.properties === "object") {
    out.type ??= "OBJECT";
    out.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, JsonSchema>).map(([k, v]) => [k, toGeminiSchema(v)]),
    );
    if (Array.isArray(schema.required) && schema.required.length) out.required = schema.required as string[];
  }
  if (schema.items && typeof schema.items === "object" && !Array.isArray(schema.items))
    out.items = toGeminiSchema(schema.items as JsonSchema);
  return out;
}

/** `tools: [{ functionDeclarations }]` entries. */
export function toGeminiFunctionDeclarations(source: ToolSource): GeminiFunctionDeclaration[] {
  return toolsOf(source).map((t) => ({ name: t.name, description: t.description, parameters: toGeminiSchema(t.inputSchema) }));
}

/** Tool calls from a response's `functionCalls` (or the `functionCall` parts of a candidate). */
export function fromGeminiFunctionCalls(calls: ReadonlyArray<GeminiFunctionCall | { functionCall?: GeminiFunctionCall }>): ToolCall[] {
  return calls
    .map((c) => ("functionCall" in c ? c.functionCall : (c as GeminiFunctionCall)))
    .filter((c): c is GeminiFunctionCall => c !== undefined && typeof c.name === "string")
    .map((c, i) => ({ id: c.id ?? `gemini_${i}_${c.name}`, name: c.name!, args: c.args ?? {} }));
}

/** A `functionResponse` part: `output` on success, `error` otherwise (Gemini's convention). */
export function toGeminiFunctionResponse(outcome: ToolOutcome): GeminiFunctionResponsePart {
  const response: Record<string, unknown> =
    outcome.status === "success"
      ? {
          output:
            outcome.structured && typeof outcome.structured === "object"
              ? { text: outcome.content, ...outcome.structured }
              : outcome.content,
        }
      : { error: { code: outcome.error?.code ?? "REJECTED", message: outcome.content, status: outcome.status } };
  return {
    functionResponse: { ...(outcome.toolCallId.startsWith("gemini_") ? {} : { id: outcome.toolCallId }), name: outcome.toolName, response },
  };
}
