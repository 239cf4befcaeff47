import type { JsonSchema } from "../core/tool.js";
import type { RunsTools } from "./runs-tools.js";

/**
 * A schema as the AI SDK (ai 5 and 6) recognises one: its `jsonSchema()` helper makes the same
 * object, marked with this registered symbol, so tackle needs no `ai` dependency at run time.
 * Validation is the runner's, so the SDK has none to run.
 */
export interface AiSdkSchema {
  readonly jsonSchema: JsonSchema;
  readonly validate: undefined;
  readonly _type: undefined;
  /**
   * The same schema as a Standard Schema, which the SDK's types accept where its own symbol-marked
   * type cannot be named: `tools: toAiSdkTools(runner)` type-checks without a cast. The SDK uses
   * the symbol-marked form first; validation here passes values through (the runner validates).
   */
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => { value: unknown };
    readonly jsonSchema: { readonly input: () => Record<string, unknown>; readonly output: () => Record<string, unknown> };
  };
}

/** One entry of an AI SDK `ToolSet`, as `tool({ description, inputSchema, execute })` makes it. */
export interface AiSdkTool {
  description: string;
  inputSchema: AiSdkSchema;
  execute(input: unknown, options: { toolCallId: string; abortSignal?: AbortSignal }): Promise<string>;
}

export interface AiSdkToolsOptions {
  /** Only these tools (default: every listed tool of the runner's registry). */
  tools?: readonly string[];
  /** What the agent is doing, shown to a person asked to approve a call. */
  context?: string;
  /** Whose "always" approvals apply (see RunOptions.scope). */
  scope?: string;
}

const SCHEMA = Symbol.for("vercel.ai.schema");

/**
 * The runner's tools as an AI SDK `ToolSet` for `generateText` / `streamText`: every call goes
 * through `runner.run`, so validation, policy, approval, caps and the audit log apply. A call that
 * fails or is rejected throws with the runner's message, which the SDK turns into a tool error
 * the model reads as one (not as an ordinary result).
 *
 * The entries are typed as the caller's context asks (`const tools: ToolSet = toAiSdkTools(runner)`):
 * the SDK marks schemas with a symbol type tackle cannot name without depending on `ai`.
 *
 * @example
 * const result = await generateText({ model, tools: toAiSdkTools(runner), prompt, stopWhen: stepCountIs(5) });
 */
export function toAiSdkTools<T = AiSdkTool>(runner: RunsTools, options: AiSdkToolsOptions = {}): Record<string, T> {
  const tools = runner.registry.list().filter((t) => !options.tools || options.tools.includes(t.name));
  const set: Record<string, AiSdkTool> = {};
  for (const tool of tools) {
    const json = () => tool.inputSchema as Record<string, unknown>;
    const inputSchema = {
      [SCHEMA]: true,
      _type: undefined,
      validate: undefined,
      jsonSchema: tool.inputSchema,
      "~standard": { version: 1, vendor: "tackle", validate: (value: unknown) => ({ value }), jsonSchema: { input: json, output: json } },
    } as AiSdkSchema;
    set[tool.name] = {
      description: tool.description,
      inputSchema,
      execute: async (input, { toolCallId, abortSignal }) => {
        const outcome = await runner.run(
          { id: toolCallId, name: tool.name, args: input },
          {
            ...(abortSignal ? { signal: abortSignal } : {}),
            ...(options.context !== undefined ? { context: options.context } : {}),
            ...(options.scope !== undefined ? { scope: options.scope } : {}),
          },
        );
        if (outcome.status !== "success") throw new Error(outcome.content);
        return outcome.content;
      },
    };
  }
  return set as Record<string, unknown> as Record<string, T>;
}
