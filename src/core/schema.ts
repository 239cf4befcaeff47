import { z } from "zod";
import type { JsonSchema, ValidationIssue, ValidationResult } from "./tool.js";

/** JSON Schema for the arguments a model sends, from zod 4's own conversion; descriptions survive. */
export function toJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** Turns zod issues into messages that name the field and say what was expected. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    let message = issue.message;
    if (issue.code === "unrecognized_keys") message = `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    return { path, message };
  });
}

/** Formats issues as one line for the model. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
}

export function validateWithZod<A>(schema: z.ZodType<A>, args: unknown): ValidationResult<A> {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return { valid: true, value: parsed.data };
  const issues = describeIssues(parsed.error.issues);
  return { valid: false, error: `Invalid arguments: ${formatIssues(issues)}.`, issues };
}
