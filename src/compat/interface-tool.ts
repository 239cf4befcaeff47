import type { ToolExecutionResult } from "../core/result.js";
import type { JsonSchema, ToolConfirmation, ToolContext, ToolExecutionOptions, ValidationResult } from "../core/tool.js";
import { JsonSchemaTool } from "./json-schema-tool.js";

/**
 * Spec 001's `Tool` interface implemented by hand: a definition whose parameters are a JSON Schema,
 * `validate`, an optional `getConfirmation`, and `execute`; no zod, and often no `name` of its own.
 */
export interface InterfaceTool {
  readonly definition: { name: string; displayName?: string; description: string; parameters: JsonSchema };
  validate(params: Record<string, unknown>): { valid: boolean; error?: string };
  getConfirmation?(params: Record<string, unknown>): ToolConfirmation;
  execute(params: Record<string, unknown>, options?: ToolExecutionOptions): Promise<ToolExecutionResult | string>;
}

/** A hand-written spec 001 tool: tackle's own tools say what they do (`effect`), these do not. */
export function isInterfaceTool(value: unknown): value is InterfaceTool {
  if (typeof value !== "object" || value === null || "effect" in value) return false;
  const v = value as Partial<InterfaceTool>;
  const d = v.definition as Partial<InterfaceTool["definition"]> | undefined;
  return (
    typeof d === "object" &&
    d !== null &&
    typeof d.name === "string" &&
    typeof d.parameters === "object" &&
    typeof v.validate === "function" &&
    typeof v.execute === "function"
  );
}

/**
 * The same tool in tackle's form: its definition's JSON Schema is the schema the model is shown, its
 * own `validate` decides (the arguments it accepts reach `execute` as given), and its
 * `getConfirmation` is its word on approval.
 */
export class FromInterfaceTool extends JsonSchemaTool {
  readonly #own: InterfaceTool;

  constructor(own: InterfaceTool) {
    const d = own.definition;
    super({
      name: d.name,
      ...(d.displayName ? { title: d.displayName } : {}),
      description: d.description,
      inputSchema: d.parameters,
      execute: (args, ctx: ToolContext) => own.execute(args, ctx),
    });
    this.#own = own;
  }

  override validate(args: unknown): ValidationResult<Record<string, unknown>> {
    const value = args ?? {};
    if (typeof value !== "object" || Array.isArray(value)) {
      const message = "arguments must be a JSON object";
      return { valid: false, error: `Invalid arguments: ${message}.`, issues: [{ path: "", message }] };
    }
    let verdict: { valid: boolean; error?: string };
    try {
      verdict = this.#own.validate(value as Record<string, unknown>);
    } catch (err) {
      verdict = { valid: false, error: (err as Error).message };
    }
    if (verdict.valid) return { valid: true, value: value as Record<string, unknown> };
    const message = verdict.error ?? `${this.name} refused these arguments`;
    return { valid: false, error: `Invalid arguments: ${message}`, issues: [{ path: "", message }] };
  }

  get needsApproval(): ((args: Record<string, unknown>) => ToolConfirmation) | undefined {
    const own = this.#own;
    return own.getConfirmation ? (args) => own.getConfirmation!(args) : undefined;
  }
}
