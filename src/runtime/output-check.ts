import type { ValidateFunction } from "ajv";
import { ajv } from "../compat/json-schema-tool.js";
import type { AnyTool } from "../core/tool.js";

const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Why a structured result does not match the tool's published output schema, or undefined when it
 * does (or the tool publishes none). MCP clients check `structuredContent` against `outputSchema`
 * and refuse a mismatch, so the runner can check it first (`checkOutput`, on in tackle's tests).
 */
export function outputMismatch(tool: AnyTool, structured: unknown): string | undefined {
  const schema = tool.outputSchema;
  if (!schema || structured === undefined) return undefined;
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv().compile(schema)));
  // A copy: the shared validator fills in defaults, and the result must stay as the tool made it.
  if (validate(structuredClone(structured))) return undefined;
  return (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? "is invalid"}`).join("; ");
}
