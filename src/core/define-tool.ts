import type { z } from "zod";
import { SchemaTool } from "./schema-tool.js";
import type { Effect } from "./effect.js";
import { cancelledIfAborted, ToolError } from "./errors.js";
import { toResult, type ToolExecutionResult } from "./result.js";
import type { Assessment, Tool, ToolAccess, ToolConfirmation, ToolContext, ToolScope, ToolExecutionOptions } from "./tool.js";
import { completeContext, isValidatedContext } from "./context.js";
import { assertToolName } from "./names.js";
import { isZod3, ZOD3_HELP } from "./zod-version.js";
import type { ParameterAliases } from "./parameter-aliases.js";

/** Everything a tool is: data plus one function. The zod schema is the argument type. */
export interface ToolSpec<S extends z.ZodType<Record<string, unknown>>> {
  name: string;
  title?: string;
  description: string;
  /** The arguments, as a zod object (optionally with a transform that folds aliases). */
  input: S;
  output?: z.ZodType;
  /**
   * Other spellings of parameters, alternate → canonical (`{ old_string: "old" }`): accepted
   * from callers, left out of the published schema, and named canonically in errors.
   */
  parameterAliases?: ParameterAliases;
  effect: Effect;
  /** Whether this call needs a person where the mode would not ask: a boolean, or with what the person is told. */
  needsApproval?: (args: z.output<S>, ctx: ToolContext) => boolean | ToolConfirmation | Promise<boolean | ToolConfirmation>;
  preview?: (args: z.output<S>, ctx: ToolContext) => string | undefined | Promise<string | undefined>;
  describeCall?: (args: z.output<S>, subjects: readonly string[], ctx: ToolContext) => string;
  assess?: (args: z.output<S>, ctx: ToolContext) => Assessment | undefined | Promise<Assessment | undefined>;
  scope?: ToolScope<z.output<S>>;
  access?: (args: z.output<S>, ctx: ToolContext) => ToolAccess | Promise<ToolAccess>;
  timeoutMs?: (args: z.output<S>) => number | undefined;
  maxOutputChars?: number;
  idempotent?: boolean;
  retryTimeouts?: boolean;
  cacheable?: boolean;
  execute: (args: z.output<S>, ctx: ToolContext) => Promise<string | ToolExecutionResult>;
  /** See {@link Tool.prepare}. */
  prepare?: () => Promise<void>;
}

class DefinedTool<S extends z.ZodType<Record<string, unknown>>> extends SchemaTool<z.output<S>> {
  readonly name: string;
  declare readonly title?: string;
  readonly description: string;
  readonly schema: z.ZodType<z.output<S>>;
  declare readonly output?: z.ZodType;
  declare readonly parameterAliases?: ParameterAliases;
  override readonly effect: Effect;
  declare readonly scope?: ToolScope<z.output<S>>;
  declare readonly maxOutputChars?: number;
  declare readonly idempotent?: boolean;
  declare readonly retryTimeouts?: boolean;
  declare readonly cacheable?: boolean;
  declare readonly needsApproval?: ToolSpec<S>["needsApproval"];
  declare readonly preview?: ToolSpec<S>["preview"];
  declare readonly describeCall?: ToolSpec<S>["describeCall"];
  declare readonly assess?: ToolSpec<S>["assess"];
  declare readonly access?: ToolSpec<S>["access"];
  declare readonly timeoutMs?: ToolSpec<S>["timeoutMs"];
  declare readonly prepare?: ToolSpec<S>["prepare"];
  readonly #run: ToolSpec<S>["execute"];

  constructor(spec: ToolSpec<S>) {
    super();
    assertToolName(spec.name);
    if (isZod3(spec.input)) throw new Error(`defineTool "${spec.name}": input ${ZOD3_HELP}`);
    this.name = spec.name;
    this.description = spec.description;
    this.schema = spec.input as unknown as z.ZodType<z.output<S>>;
    this.effect = spec.effect;
    this.#run = spec.execute;
    // Optional members are only set when given, so `"preview" in tool` means something.
    const optional = {
      title: spec.title,
      output: spec.output,
      parameterAliases: spec.parameterAliases,
      scope: spec.scope,
      maxOutputChars: spec.maxOutputChars,
      idempotent: spec.idempotent,
      retryTimeouts: spec.retryTimeouts,
      cacheable: spec.cacheable,
      needsApproval: spec.needsApproval,
      preview: spec.preview,
      describeCall: spec.describeCall,
      assess: spec.assess,
      access: spec.access,
      timeoutMs: spec.timeoutMs,
      prepare: spec.prepare,
    };
    for (const [key, value] of Object.entries(optional)) {
      // Configurable: the registry's alias view (a Proxy) returns bound functions, which a
      // non-configurable, read-only property would forbid (TypeError on `edit`'s preview).
      if (value !== undefined) Object.defineProperty(this, key, { value, enumerable: true, configurable: true });
    }
  }

  async execute(args: z.output<S>, ctx?: ToolExecutionOptions): Promise<ToolExecutionResult> {
    let value = args;
    if (!isValidatedContext(ctx)) {
      const checked = this.validate(args);
      if (!checked.valid) throw new ToolError("INVALID_ARGS", checked.error);
      value = checked.value;
    }
    const context = completeContext(ctx);
    try {
      return toResult(await this.#run(value, context));
    } catch (err) {
      throw cancelledIfAborted(err, context.signal);
    }
  }
}

/**
 * Defines a tool. The returned tool registers like any other and can also be called directly:
 * `await tool.execute({ ... })`.
 *
 * @example
 * const echo = defineTool({
 *   name: "echo", description: "Repeats the text.", effect: "read",
 *   input: z.object({ text: z.string().describe("What to repeat") }),
 *   execute: async ({ text }) => text,
 * });
 */
export function defineTool<S extends z.ZodType<Record<string, unknown>>>(spec: ToolSpec<S>): SchemaTool<z.output<S>> & Tool<z.output<S>> {
  return new DefinedTool(spec);
}
