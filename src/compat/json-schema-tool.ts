import type { Ajv, ValidateFunction } from "ajv";
import { createRequire } from "node:module";
import { annotationsFor, type Effect, type ToolAnnotations } from "../core/effect.js";
import { ToolError } from "../core/errors.js";
import { toResult, type ToolExecutionResult } from "../core/result.js";
import type { JsonSchema, Tool, ToolContext, ToolDefinition, ValidationResult, ToolExecutionOptions, ToolScope } from "../core/tool.js";
import { completeContext, isValidatedContext } from "../core/context.js";
import { assertToolName } from "../core/names.js";
import { asSentence, formatIssues } from "../core/schema.js";

/**
 * A tool described by plain data and a JSON Schema (spec 000's ITool), as MCP proxies and
 * tools declared in configuration are. `execute` may return a string.
 */
export interface PlainTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  /** Defaults to `execute`: nothing is known about what it does, so it is asked about. */
  effect?: Effect;
  annotations?: ToolAnnotations;
  timeoutMs?: number;
  maxOutputChars?: number;
  /** What rules match against (paths, commands or domains), as for any tool. */
  scope?: ToolScope<Record<string, unknown>>;
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<string | ToolExecutionResult>;
}

type AjvFormats = (ajv: Ajv) => Ajv;

let sharedAjv: Ajv | undefined;
/** The JSON Schema validator tackle shares (ajv, loaded on first use). */
export function ajv(): Ajv {
  if (!sharedAjv) {
    // strict: false because third-party schemas carry keywords ajv does not know (e.g. "x-...").
    // Loaded on the first validation: most runs have no JSON Schema tool (MCP proxies, config tools).
    const require = createRequire(import.meta.url);
    const { Ajv: AjvClass } = require("ajv") as { Ajv: new (options: object) => Ajv };
    const formats = require("ajv-formats") as { default?: AjvFormats } & AjvFormats;
    const addFormats = formats.default ?? formats;
    sharedAjv = new AjvClass({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false, validateSchema: false });
    addFormats(sharedAjv);
  }
  return sharedAjv;
}

export function isPlainTool(value: unknown): value is PlainTool {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as PlainTool).name === "string" &&
    typeof (value as PlainTool).execute === "function" &&
    // Checked before inputSchema: reading that on a defined tool would build its JSON Schema now.
    !("validate" in value) &&
    typeof (value as PlainTool).inputSchema === "object"
  );
}

/** Wraps a PlainTool so it validates with a real JSON Schema validator (ajv). */
export class JsonSchemaTool implements Tool<Record<string, unknown>> {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly effect: Effect;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly annotations: ToolAnnotations;
  readonly maxOutputChars?: number;
  readonly scope?: ToolScope<Record<string, unknown>>;
  readonly #plain: PlainTool;
  #validator?: ValidateFunction;

  constructor(plain: PlainTool) {
    assertToolName(plain.name);
    this.#plain = plain;
    this.name = plain.name;
    if (plain.title !== undefined) this.title = plain.title;
    this.description = plain.description;
    this.effect = plain.effect ?? "execute";
    this.inputSchema = { type: "object", ...plain.inputSchema };
    if (plain.outputSchema !== undefined) this.outputSchema = plain.outputSchema;
    this.annotations = plain.annotations ?? annotationsFor(this.effect, plain.title);
    if (plain.maxOutputChars !== undefined) this.maxOutputChars = plain.maxOutputChars;
    if (plain.scope !== undefined) this.scope = plain.scope;
  }

  get definition(): ToolDefinition {
    return {
      name: this.name,
      ...(this.title ? { displayName: this.title } : {}),
      description: this.description,
      parameters: this.inputSchema,
    };
  }

  timeoutMs(): number | undefined {
    return this.#plain.timeoutMs;
  }

  validate(args: unknown): ValidationResult<Record<string, unknown>> {
    const value = args ?? {};
    if (typeof value !== "object" || Array.isArray(value)) {
      const message = "arguments must be a JSON object";
      return { valid: false, error: `Invalid arguments: ${message}.`, issues: [{ path: "", message }] };
    }
    let validator = this.#validator;
    if (!validator) {
      try {
        validator = this.#validator = ajv().compile(this.inputSchema);
      } catch (err) {
        // A server's broken schema must not make its tool unusable: accept any object then.
        validator = this.#validator = ajv().compile({ type: "object" });
        void err;
      }
    }
    const copy = structuredClone(value) as Record<string, unknown>;
    if (validator(copy)) return { valid: true, value: copy };
    const issues = (validator.errors ?? []).map((e) => {
      const path = e.instancePath.replace(/^\//, "").replaceAll("/", ".");
      const field = e.keyword === "required" ? String((e.params as { missingProperty?: string }).missingProperty) : path;
      const message =
        e.keyword === "required"
          ? "is required"
          : e.keyword === "additionalProperties"
            ? `unknown field "${String((e.params as { additionalProperty?: string }).additionalProperty)}"`
            : (e.message ?? "is invalid");
      return { path: e.keyword === "required" ? (path ? `${path}.${field}` : field) : field, message };
    });
    return { valid: false, error: `Invalid arguments: ${asSentence(formatIssues(issues))}`, issues };
  }

  async execute(args: Record<string, unknown>, ctx?: ToolExecutionOptions): Promise<ToolExecutionResult> {
    let value = args;
    if (!isValidatedContext(ctx)) {
      const checked = this.validate(args);
      if (!checked.valid) throw new ToolError("INVALID_ARGS", checked.error);
      value = checked.value;
    }
    return toResult(await this.#plain.execute(value, completeContext(ctx)));
  }
}
