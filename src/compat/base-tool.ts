import type { ToolExecutionResult } from "../core/result.js";
import type { ToolConfirmation, ToolContext, ToolExecutionOptions } from "../core/tool.js";
import { SchemaTool } from "../core/schema-tool.js";
import { copiedSignal, isValidatedContext } from "../core/context.js";
import { ToolError } from "../core/errors.js";

/**
 * A tool written as a class, the form one requirement document uses: subclasses set `name`,
 * `description` and `schema` (and usually `effect`) and implement only `execute`. It is converted
 * to tackle's one way of deciding approval: a `getConfirmation` the class overrides becomes the
 * tool's `needsApproval`, its message what the person reads.
 */
export abstract class BaseTool<TParams = Record<string, unknown>> extends SchemaTool<TParams> {
  constructor() {
    super();
    // Called directly (not through the runner), execute gets its arguments validated first.
    const own = this.execute;
    this.execute = (params, options) => {
      if (isValidatedContext(options)) return own.call(this, params, options);
      const checked = this.validate(params);
      if (!checked.valid) return Promise.reject(new ToolError("INVALID_ARGS", checked.error));
      const signal = options && !options.signal ? copiedSignal(options) : undefined;
      return own.call(this, checked.value, signal ? { ...options, signal } : options);
    };
  }

  /** What a person is told before the call runs; override to decide per call. */
  getConfirmation(_params: TParams): ToolConfirmation {
    const type = this.effect === "network" ? "execute" : this.effect;
    return { required: this.effect !== "read", type, message: `${this.title ?? this.name} (${this.effect})` };
  }

  /** The class's own word on approval, when it overrides getConfirmation; nothing otherwise. */
  get needsApproval(): ((params: TParams, ctx: ToolContext) => ToolConfirmation) | undefined {
    return this.getConfirmation === BaseTool.prototype.getConfirmation ? undefined : (params) => this.getConfirmation(params);
  }

  abstract override execute(params: TParams, options?: ToolExecutionOptions): Promise<ToolExecutionResult>;
}
