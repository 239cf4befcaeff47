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

/** First words of tools that change files (write_file, createNote, delete-entry): a person is told "changes to files", not "commands". */
const WRITES = new Set(["write", "edit", "create", "delete", "remove", "move", "rename", "append", "save", "update", "patch", "modify"]);

function firstWord(name: string): string {
  return (
    name
      .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
      .toLowerCase()
      .split(/[^a-z0-9]+/)[0] ?? ""
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
    // Nothing says what it touches but its name; its own answer says whether a person must look.
    effect: WRITES.has(firstWord(spec.name)) ? "write" : "execute",
    needsApproval: async (args) => (typeof requiresApproval === "function" ? requiresApproval(args) : requiresApproval !== false),
    execute: async (args, ctx): Promise<ToolExecutionResult> => {
      const result = await spec.execute(args, ctx);
      if (!result || typeof result !== "object" || !("ok" in result)) {
        throw new ToolError("EXECUTION_ERROR", `${spec.name} returned something other than { ok, value } or { ok: false, error }.`);
      }
      if (!result.ok) throw asToolError(result.error);
      const value = result.value;
      return {
        content: typeof value === "string" ? value : JSON.stringify(value, null, 2),
        ...(value !== null && typeof value === "object" ? { structured: value } : {}),
      };
    },
  });
}

/**
 * A tool's `{ ok: false, error }` as the outcome's error: spec 003's `{ code, message, details }`
 * as given (a code of the tool's own kept too), an Error or a string as EXECUTION_ERROR.
 */
function asToolError(error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  if (error instanceof Error) return new ToolError("EXECUTION_ERROR", error.message, { cause: error });
  if (typeof error === "string") return new ToolError("EXECUTION_ERROR", error);
  const e = error as { code?: unknown; message?: unknown; details?: unknown } | null;
  if (e && typeof e === "object" && typeof e.message === "string") {
    const code = typeof e.code === "string" && /^[A-Z][A-Z0-9_]{0,63}$/.test(e.code) ? e.code : "EXECUTION_ERROR";
    const details =
      e.details && typeof e.details === "object" && !Array.isArray(e.details) ? (e.details as Record<string, unknown>) : undefined;
    return new ToolError(code, e.message, details ? { details } : {});
  }
  return new ToolError("EXECUTION_ERROR", JSON.stringify(error) ?? String(error));
}
