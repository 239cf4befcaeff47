import { z } from "zod";
import type { JsonSchema, ValidationIssue, ValidationResult } from "./tool.js";
import { nearestNames } from "./names.js";
import { foldAliases, type ParameterAliases } from "./parameter-aliases.js";
import { schemaFingerprint } from "./schema-fingerprint.js";

/**
 * Conversions kept between processes, as JSON text under a schema's fingerprint (core/schema-fingerprint.ts):
 * the command line keeps them in its cache folder (cli/schema-store.ts).
 */
export interface JsonSchemaStore {
  get(key: string): string | undefined;
  set(key: string, json: string): void;
}

let store: JsonSchemaStore | undefined;
// Part of every key: a change to how schemas are converted (zod's version, the options, what is
// done after) must not find conversions made the old way. Raise the number when the code below changes.
const CONVERSION = `1 zod ${z.core.version.major}.${z.core.version.minor}.${z.core.version.patch} input any`;

/** Lets {@link toJsonSchema} reuse the conversions `next` keeps (undefined: none). For the command line. */
export function useJsonSchemaStore(next: JsonSchemaStore | undefined): void {
  store = next;
}

/** JSON Schema for the arguments a model sends, from zod 4's own conversion; descriptions survive. */
export function toJsonSchema(schema: z.ZodType): JsonSchema {
  const fingerprint = store && schemaFingerprint(schema);
  const key = fingerprint && `${CONVERSION} ${fingerprint}`;
  const kept = key ? store?.get(key) : undefined;
  if (kept !== undefined) return JSON.parse(kept) as JsonSchema;
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  if (key && isJson(json)) store?.set(key, JSON.stringify(json));
  return json;
}

/** Whether JSON text holds all of `value` (no undefined, NaN, Infinity, function or bigint in it). */
function isJson(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every(isJson);
}

/** Turns zod issues into messages that name the field and say what was expected. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    let message = issue.message;
    if (issue.code === "unrecognized_keys") message = `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    return { path, message: plainly(message) };
  });
}

const BOUNDS: Readonly<Record<string, string>> = { ">=": "at least", ">": "more than", "<=": "at most", "<": "less than" };

/** zod's own wording ("Invalid input: expected string, received undefined"), said plainly; any other message is kept. */
function plainly(message: string): string {
  const types = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (types) {
    const [, expected, received] = types;
    return received === "undefined" ? `is required (${aOrAn(expected!)})` : `must be ${aOrAn(expected!)}, not ${aOrAn(received!)}`;
  }
  const option = /^Invalid option: expected one of (.+)$/.exec(message);
  if (option) return `must be one of ${option[1]!.split("|").join(", ")}`;
  const bound = /^Too (?:small|big): expected \w+ to (be|have) ([<>]=?)(\S+)(.*)$/.exec(message);
  if (bound) return `must ${bound[1]} ${BOUNDS[bound[2]!]} ${bound[3]}${bound[4]}`;
  return message;
}

function aOrAn(type: string): string {
  if (type === "null" || type === "undefined") return type;
  return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}

/**
 * Formats issues as one line: `path is required (a string)`, `limit must be a number, not a
 * string`, `mode: Invalid input` for any other message; one that already names its field
 * (`command is empty`) is not prefixed again.
 */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues
    .map((i) => {
      if (!i.path || i.message.startsWith(`${i.path} `)) return i.message;
      return /^(is|must) /.test(i.message) ? `${i.path} ${i.message}` : `${i.path}: ${i.message}`;
    })
    .join("; ");
}

/** `text` ended as a sentence: a full stop unless it already ends with one, a question or an exclamation. */
export function asSentence(text: string): string {
  return /[.?!]$/.test(text) ? text : `${text}.`;
}

/** Validates `args` against `schema`, after folding other spellings of its parameters into theirs. */
export function validateWithZod<A>(schema: z.ZodType<A>, given: unknown, aliases?: ParameterAliases): ValidationResult<A> {
  const { args, issues: clashes } = foldAliases(given, aliases);
  const strays = unknownParameters(schema, args);
  const unknown = clashes.length ? [...clashes, ...strays] : strays;
  if (unknown.length) return { valid: false, error: `Invalid arguments: ${asSentence(formatIssues(unknown))}`, issues: unknown };
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return { valid: true, value: parsed.data };
  const issues = describeIssues(parsed.error.issues);
  return { valid: false, error: `Invalid arguments: ${asSentence(formatIssues(issues))}`, issues };
}

interface SchemaDef {
  type: string;
  shape?: Record<string, unknown>;
  catchall?: { _zod: { def: SchemaDef } };
  in?: { _zod: { def: SchemaDef } };
  innerType?: { _zod: { def: SchemaDef } };
}

/** What {@link parameterNames} found, per schema: it is asked on every call. */
const namesOf = new WeakMap<z.ZodType, string[] | null>();

/** The parameter names an argument schema takes, or undefined when it takes any (a loose or non-object schema). */
function parameterNames(schema: z.ZodType): string[] | undefined {
  let names = namesOf.get(schema);
  if (names === undefined) namesOf.set(schema, (names = findParameterNames(schema) ?? null));
  return names ?? undefined;
}

function findParameterNames(schema: z.ZodType): string[] | undefined {
  let def = (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
  for (let depth = 0; depth < 10; depth++) {
    if (def.type === "object") return def.catchall && def.catchall._zod.def.type !== "never" ? undefined : Object.keys(def.shape ?? {});
    const next = def.in ?? def.innerType;
    if (!next) return undefined;
    def = next._zod.def;
  }
  return undefined;
}

/**
 * Arguments the tool does not take. A misspelt optional parameter (`limt`) would otherwise be
 * dropped without a word and the call would do something else than asked (read the whole file).
 */
function unknownParameters(schema: z.ZodType, args: unknown): ValidationIssue[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return [];
  const known = parameterNames(schema);
  if (!known) return [];
  const keys = Object.keys(args);
  if (keys.every((key) => known.includes(key))) return [];
  return keys
    .filter((key) => !known.includes(key))
    .map((key) => {
      const near = nearestNames(key, known);
      return {
        path: key,
        message: `unknown parameter${near.length ? `; did you mean "${near[0]}"?` : ` (this tool takes ${known.map((k) => `"${k}"`).join(", ")})`}`,
      };
    });
}
