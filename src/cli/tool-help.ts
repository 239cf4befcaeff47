import { retryPlanOf } from "../core/retry-plan.js";
import { DEFAULT_RETRY } from "../runtime/retry.js";
import type { AnyTool, JsonSchema } from "../core/tool.js";

interface ParameterSchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  items?: { type?: string };
  anyOf?: ParameterSchema[];
  examples?: unknown[];
}

/** A parameter's type as a person reads it: `integer`, `string[]`, `"a" | "b"`. */
export function typeName(schema: ParameterSchema): string {
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (schema.anyOf) return [...new Set(schema.anyOf.map(typeName))].join(" | ");
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return "any";
  return types.map((t) => (t === "array" ? `${schema.items?.type ?? "any"}[]` : t)).join(" | ");
}

/** A value to show in an example call, so it reads as something a person could type. */
function exampleValue(name: string, schema: ParameterSchema): string {
  const given = schema.examples?.[0] ?? schema.default ?? schema.enum?.[0];
  if (given !== undefined) return typeof given === "string" ? quoteForShell(given) : quoteForShell(JSON.stringify(given));
  const type = typeName(schema);
  if (/path|file/i.test(name) && type.includes("string")) return "README.md";
  if (/^(command|cmd)$/i.test(name)) return quoteForShell("ls -la");
  if (/pattern|query/i.test(name)) return "TODO";
  if (type.startsWith("integer") || type.startsWith("number")) return "10";
  if (type.startsWith("boolean")) return "true";
  if (type.endsWith("[]")) return quoteForShell('["a","b"]');
  if (type.startsWith("object")) return quoteForShell('{"key":"value"}');
  return "text";
}

function quoteForShell(text: string): string {
  return /^[\w./:@%+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The parameters, the required first, as [name, schema, required]. */
function parameters(inputSchema: JsonSchema): Array<[string, ParameterSchema, boolean]> {
  const properties = (inputSchema.properties ?? {}) as Record<string, ParameterSchema>;
  const required = new Set((inputSchema.required ?? []) as string[]);
  return Object.entries(properties)
    .map(([name, schema]): [string, ParameterSchema, boolean] => [name, schema, required.has(name)])
    .sort((a, b) => Number(b[2]) - Number(a[2]));
}

/** When tackle tries a call of this tool again by itself, as its definition says. */
function retryLine(tool: AnyTool): string {
  const plan = retryPlanOf(tool);
  const times = `up to ${DEFAULT_RETRY.retries} times, with backoff`;
  if (plan.timeouts) return `${times}, after a failure that may pass (network, rate limit) or running out of time`;
  if (plan.failures) return `${times}, after a failure that may pass (network, rate limit); not after running out of time`;
  return "never (running it twice could do twice what it does)";
}

/** An example `tackle call` line with every required parameter filled in. */
export function exampleCall(tool: AnyTool): string {
  const pairs = parameters(tool.inputSchema)
    .filter(([, , required]) => required)
    .map(([name, schema]) => `${name}=${exampleValue(name, schema)}`);
  return ["tackle call", tool.name, ...pairs].join(" ");
}

/** One tool described for a person: what it does, its parameters, its effect and an example call. */
export function describeTool(tool: AnyTool): string {
  const lines: string[] = [];
  lines.push(`${tool.name}${tool.title ? ` — ${tool.title}` : ""}`, "");
  lines.push(tool.description.trim(), "");
  lines.push(`Effect: ${tool.effect}`, `Retried: ${retryLine(tool)}`, "");
  const params = parameters(tool.inputSchema);
  lines.push("Parameters:");
  if (params.length === 0) lines.push("  (none)");
  const width = Math.max(0, ...params.map(([name]) => name.length));
  for (const [name, schema, required] of params) {
    const facts = [typeName(schema), required ? "required" : "optional"];
    // Many tools state their defaults in words ("Most lines to read (default 2000).") rather than in the schema.
    const stated = /\(default:? ([^)]+)\)/i.exec(schema.description ?? "")?.[1];
    if (schema.default !== undefined) facts.push(`default ${JSON.stringify(schema.default)}`);
    else if (stated) facts.push(`default ${stated}`);
    lines.push(`  ${name.padEnd(width)}  ${facts.join(", ")}`);
    if (schema.description) lines.push(`  ${" ".repeat(width)}  ${schema.description.replace(/\n/g, " ")}`);
  }
  lines.push("", "Example:", `  ${exampleCall(tool)}`);
  return `${lines.join("\n")}\n`;
}

/** The same description as data, for `--json`. */
export function describeToolJson(tool: AnyTool): Record<string, unknown> {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    effect: tool.effect,
    example: exampleCall(tool),
  };
}
