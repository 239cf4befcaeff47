import type { z } from "zod";
import { annotationsFor, type Effect, type ToolAnnotations } from "./effect.js";
import type { ToolExecutionResult } from "./result.js";
import type { JsonSchema, Tool, ToolConfirmation, ToolDefinition, ValidationResult, ToolExecutionOptions } from "./tool.js";
import { toJsonSchema, validateWithZod } from "./schema.js";
import { assertToolName } from "./names.js";
import { copiedSignal, isValidatedContext } from "./context.js";
import { ToolError } from "./errors.js";
import type { ParameterAliases } from "./parameter-aliases.js";

/**
 * A tool written as a class: subclasses set `name`, `description` and `schema`
 * (and usually `effect`) and implement only `execute`. Definition, JSON Schema and validation
 * come from here.
 */
export abstract class BaseTool<TParams = Record<string, unknown>> implements Tool<TParams> {
  abstract readonly name: string;
  abstract readonly description: string;
  abstract readonly schema: z.ZodType<TParams>;
  /** Unless a subclass says otherwise a tool may do anything, so it is asked about. */
  readonly effect: Effect = "execute";
  declare readonly title?: string;
  declare readonly output?: z.ZodType;
  /** Other spellings of parameters, accepted but not published (see `ToolSpec.parameterAliases`). */
  declare readonly parameterAliases?: ParameterAliases;

  #inputSchema?: JsonSchema;
  #outputSchema?: JsonSchema | null;

  constructor() {
    // A subclass's execute called directly (not through the runner) gets its arguments validated
    // first, as spec 001 promises; classes that validate themselves (defineTool's) say so.
    if (!(new.target as unknown as { validatesItself?: boolean }).validatesItself) {
      const own = this.execute;
      this.execute = (params, options) => {
        if (isValidatedContext(options)) return own.call(this, params, options);
        const checked = this.validate(params);
        if (!checked.valid) return Promise.reject(new ToolError("INVALID_ARGS", checked.error));
        const signal = options && !options.signal ? copiedSignal(options) : undefined;
        return own.call(this, checked.value, signal ? { ...options, signal } : options);
      };
    }
  }

  get inputSchema(): JsonSchema {
    return (this.#inputSchema ??= toJsonSchema(this.schema));
  }

  get outputSchema(): JsonSchema | undefined {
    if (this.#outputSchema === undefined) this.#outputSchema = this.output ? toJsonSchema(this.output) : null;
    return this.#outputSchema ?? undefined;
  }

  get annotations(): ToolAnnotations {
    return annotationsFor(this.effect, this.title);
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

  getConfirmation(_params: TParams): ToolConfirmation {
    const type = this.effect === "network" ? "execute" : this.effect;
    return { required: this.effect !== "read", type, message: `${this.title ?? this.name} (${this.effect})` };
  }

  abstract execute(params: TParams, options?: ToolExecutionOptions): Promise<ToolExecutionResult>;
}
