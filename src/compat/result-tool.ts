import type { z } from "zod";
import { defineTool } from "../core/define-tool.js";
import { ToolError } from "../core/errors.js";
import type { ToolExecutionResult } from "../core/result.js";
import type { AnyTool, ToolContext } from "../core/tool.js";
import { isZod4 } from "../core/zod-version.js";

/**
 * A tool as an object whose input schema is a zod schema and whose execute answers
 * `{ ok: true, value } | { ok: false, error }` (spec 003's shape), with `requiresApproval` as a
 * boolean or a function of the arguments.
 */
export interface ResultTool {
  name: string;
  description: string;
  inputSchema: z.ZodType<Record<string, unknown>>;
  outputSchema?: z.ZodType;
  requiresApproval?: boolean | ((args: Record<string, unknown>) => boolean | Promise<boolean>);
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResultValue> | ToolResultValue;
}

/** What a {@link ResultTool} answers. */
export type ToolResultValue = { ok: true; value: unknown } | { ok: false; error: unknown };

export function isResultTool(value: unknown): value is ResultTool {
  const v = value as Partial<ResultTool> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.name === "string" &&
    typeof v.execute === "function" &&
    !("validate" in v) &&
    isZod4(v.inputSchema)
  );
}

/** The same tool in tackle's own form: validated, approved and answered like any other. */
export function fromResultTool(spec: ResultTool): AnyTool {
  const { requiresApproval } = spec;
  return defineTool({
    name: spec.name,
    description: spec.description,
    input: spec.inputSchema,
    ...(spec.outputSchema ? { output: spec.outputSchema } : {}),
    // Nothing says what it touches; its own answer says whether a person must look.
    effect: "execute",
    needsApproval: async (args) => (typeof requiresApproval === "function" ? requiresApproval(args) : requiresApproval !== false),
    execute: async (args, ctx): Promise<ToolExecutionResult> => {
      const result = await spec.execute(args, ctx);
      if (!result || typeof result !== "object" || !("ok" in result)) {
        throw new ToolError("EXECUTION_ERROR", `${spec.name} returned something other than { ok, value } or { ok: false, error }.`);
      }
      if (!result.ok) {
        const error = result.error;
        throw new ToolError(
          "EXECUTION_ERROR",
          error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error),
        );
      }
      const value = result.value;
      return {
        content: typeof value === "string" ? value : JSON.stringify(value, null, 2),
        ...(value !== null && typeof value === "object" ? { structured: value } : {}),
      };
    },
  });
}
