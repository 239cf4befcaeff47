import type { z } from "zod";
import { annotationsFor, type Effect, type ToolAnnotations } from "./effect.js";
import type { ToolExecutionResult } from "./result.js";
import type { JsonSchema, Tool, ToolDefinition, ToolExecutionOptions, ValidationResult } from "./tool.js";
import { toJsonSchema, validateWithZod } from "./schema.js";
import { assertToolName } from "./names.js";
import type { ParameterAliases } from "./parameter-aliases.js";

/**
 * What every tool whose arguments are a zod schema shares: the JSON Schema derived from it, the
 * definition each model API is given, the MCP annotations its effect implies, and validation with
 * the other spellings of its parameters folded in. `defineTool` builds on it, and so does the
 * class form in src/compat.
 */
export abstract class SchemaTool<TParams = Record<string, unknown>> implements Tool<TParams> {
  abstract readonly name: string;
  abstract readonly description: string;
  abstract readonly schema: z.ZodType<TParams>;
  /** Unless said otherwise a tool may do anything, so it is asked about. */
  readonly effect: Effect = "execute";
  declare readonly title?: string;
  declare readonly output?: z.ZodType;
  /** Other spellings of parameters, accepted but not published (see `ToolSpec.parameterAliases`). */
  declare readonly parameterAliases?: ParameterAliases;
  declare readonly idempotent?: boolean;

  #inputSchema?: JsonSchema;
  #outputSchema?: JsonSchema | null;

  get inputSchema(): JsonSchema {
    return (this.#inputSchema ??= toJsonSchema(this.schema));
  }

  get outputSchema(): JsonSchema | undefined {
    if (this.#outputSchema === undefined) this.#outputSchema = this.output ? toJsonSchema(this.output) : null;
    return this.#outputSchema ?? undefined;
  }

  get annotations(): ToolAnnotations {
    return annotationsFor(this.effect, this.title, this.idempotent);
  }

  get definition(): ToolDefinition {
    assertToolName(this.name);
    return {
      name: this.name,
      ...(this.title ? { displayName: this.title } : {}),
      description: this.description,
      parameters: this.inputSchema,
    };
  }

  validate(params: unknown): ValidationResult<TParams> {
    return validateWithZod(this.schema, params, this.parameterAliases);
  }

  abstract execute(params: TParams, options?: ToolExecutionOptions): Promise<ToolExecutionResult>;
}
