import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { parse as parseDotenv } from "dotenv";
import { parse as parseJsonc, printParseErrorCode, type ParseError } from "jsonc-parser";
import { APPROVAL_MODES } from "../core/approval-mode.js";
import { formatIssues, describeIssues, asSentence } from "../core/schema.js";
import { terminalSafe } from "../core/visible.js";
import { nearestNames } from "../core/names.js";
import { HooksSchema } from "./hooks-config.js";
import { McpServerEntrySchema, type McpServerEntry } from "./mcp-server-entry.js";
import { foldKeySpellings } from "../compat/key-spellings.js";

/**
 * tackle.config.json. Sections for tool groups (services, web, shell, sandbox...) are validated
 * by the groups that read them, so unknown keys pass through here. Built when a configuration is
 * first read (z.lazy): a start without one does not make its schemas (1–4 ms of `tackle mcp`, measured).
 */
export const ConfigSchema = z.lazy(() =>
  z.looseObject({
    workingDirectory: z.string().optional(),
    approval: z.enum(APPROVAL_MODES as [string, ...string[]]).optional(),
    permissions: z
      .object({ allow: z.array(z.string()).optional(), ask: z.array(z.string()).optional(), deny: z.array(z.string()).optional() })
      .optional(),
    toolset: z.enum(["default", "coding", "assistant", "editor", "workspace"]).optional(),
    /** Extra folders tools may reach besides the workspace. */
    roots: z.array(z.object({ path: z.string(), writable: z.boolean().default(false) })).optional(),
    mcpServers: z.record(z.string(), McpServerEntrySchema).optional(),
    /** How long tackle waits for MCP servers still connecting (at start-up of tools / call, and per call). */
    mcpWaitMs: z.number().int().nonnegative().optional(),
    services: z.record(z.string(), z.looseObject({})).optional(),
    log: z.string().optional(),
    /** The shared store: "file" (default), "file:/folder", "postgres://...", or { url, namespace }. */
    store: z.union([z.string().min(1), z.object({ url: z.string().min(1), namespace: z.string().min(1).optional() })]).optional(),
    timeoutMs: z.number().int().positive().optional(),
    maxOutputChars: z.number().int().positive().optional(),
    /** Refuse edits of files changed on disk since the model last read them, or never read (default true). */
    staleEditGuard: z.boolean().optional(),
    /** Commands run before and after tool calls (see runtime/hooks.ts). */
    hooks: HooksSchema.optional(),
    /** Keep every change tools make so `tackle undo` can rewind it (default true), with its bounds. */
    checkpoints: z
      .union([
        z.boolean(),
        z.object({
          maxEntries: z.number().int().positive().optional(),
          maxBytes: z.number().int().positive().optional(),
          maxFileBytes: z.number().int().positive().optional(),
        }),
      ])
      .optional(),
  }),
);

export type TackleConfig = z.infer<typeof ConfigSchema>;
/** One `mcpServers` entry (spec 000's McpServerConfig). */
export type McpServerConfig = McpServerEntry;

/** Configuration with where it came from and the secrets beside it. */
export interface LoadedConfig {
  config: TackleConfig;
  /** The file read, if any. */
  file?: string;
  /** The workspace root: --workspace, else workingDirectory (beside the file), else the directory tackle started in. */
  workspace: string;
  /** `.env` values overlaid by the process environment. */
  env: Record<string, string | undefined>;
}

export const CONFIG_FILES = ["tackle.config.json", "config.json"] as const;
/** The secrets file tackle reads where it starts and beside its configuration: configuration too, for who may write it. */
export const DOTENV_FILE = ".env";

/** Sections read by the tool groups themselves (web, shell, ...), beside the keys ConfigSchema names. */
const GROUP_SECTIONS = ["web", "shell", "search", "sandbox", "lsp", "tools", "toolModules", "$schema"];
let topLevel: readonly string[] | undefined;
/** Every top-level key tackle reads; asked only once a file is read, as the schema is built then. */
function topLevelKeys(): readonly string[] {
  return (topLevel ??= [...Object.keys(ConfigSchema.unwrap().shape), ...GROUP_SECTIONS]);
}
const warnedKeys = new Set<string>();

/** Keys come from files a model may have written: their control characters are shown, never obeyed. */
function warnOnStderr(message: string): void {
  process.stderr.write(`tackle: ${terminalSafe(message)}\n`);
}

/**
 * A misspelt key (`aproval`) would otherwise be ignored without a word, so each unknown top-level
 * key is a warning naming the closest known one; once per file and key, however often it is loaded.
 */
function warnUnknownKeys(raw: unknown, source: string, warn: (message: string) => void): void {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return;
  for (const key of Object.keys(raw)) {
    if (topLevelKeys().includes(key) || warnedKeys.has(`${source}\0${key}`)) continue;
    warnedKeys.add(`${source}\0${key}`);
    const near = nearestNames(key, topLevelKeys(), 1)[0];
    warn(`${source}: unknown key "${key}" is ignored${near ? `; did you mean "${near}"?` : "."}`);
  }
  // A misspelt rule list (`alow`) would drop every rule in it without a word.
  const permissions = (raw as { permissions?: unknown }).permissions;
  if (!permissions || typeof permissions !== "object" || Array.isArray(permissions)) return;
  for (const key of Object.keys(permissions)) {
    if (["allow", "ask", "deny"].includes(key) || warnedKeys.has(`${source}\0permissions.${key}`)) continue;
    warnedKeys.add(`${source}\0permissions.${key}`);
    const near = nearestNames(key, ["allow", "ask", "deny"], 1)[0];
    warn(`${source}: unknown key "permissions.${key}" is ignored${near ? `; did you mean "permissions.${near}"?` : "."}`);
  }
}

/** spec 004 calls the workspace `documentsDirectory`. */
const SYNONYMS = { documentsDirectory: "workingDirectory" };

/** The configuration's keys under their own names, whatever their letter case or synonym. */
function canonicalKeys(raw: unknown): unknown {
  return foldKeySpellings(raw, topLevelKeys(), SYNONYMS);
}

/** Parses a configuration object, with errors that name the field. */
export function parseConfig(given: unknown, source = "configuration"): TackleConfig {
  const raw = canonicalKeys(given);
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`${source} is invalid: ${asSentence(formatIssues(describeIssues(parsed.error.issues)))}`);
  return parsed.data;
}

/**
 * The configuration file that governs `dir`, found as git finds a repository: the nearest folder,
 * from `dir` up, with tackle.config.json, or a config.json that has tackle's keys (another
 * program's config.json, here or above, is not tackle's: taking it would drop the project's deny
 * rules in that folder). The walk stops after the repository's root (a folder holding `.git`) or
 * the home folder, so a project's deny rules hold in each of its subfolders and nothing above the
 * project is taken for it.
 */
export function findConfigFile(dir: string, home = os.homedir()): string | undefined {
  let current = path.resolve(dir);
  for (;;) {
    for (const name of CONFIG_FILES) {
      const candidate = path.join(current, name);
      if (!existsSync(candidate)) continue;
      if (name === CONFIG_FILES[0] || hasTackleKeys(candidate)) return candidate;
    }
    const parent = path.dirname(current);
    if (parent === current || current === home || existsSync(path.join(current, ".git"))) return undefined;
    current = parent;
  }
}

/**
 * A config.json where tackle started that was passed over (none of tackle's keys) but has a key
 * one slip from one of them (`aproval`) was perhaps meant for tackle: said once, naming the file
 * that governs instead.
 */
export function warnPassedOver(here: string, governing: string | undefined, warn: (message: string) => void = warnOnStderr): void {
  if (governing === here || !existsSync(here)) return;
  let raw: unknown;
  try {
    raw = parseJsonc(readFileSync(here, "utf8"), [], { allowTrailingComma: true });
  } catch {
    return;
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return;
  const slip = Object.keys(raw).flatMap((key) => {
    const near = nearestNames(key, topLevelKeys(), 1)[0];
    return near && near.toLowerCase() !== key.toLowerCase() ? [`"${key}" (did you mean "${near}"?)`] : [];
  })[0];
  if (!slip || warnedKeys.has(`${here}\0passed-over`)) return;
  warnedKeys.add(`${here}\0passed-over`);
  warn(
    `${here} has none of tackle's keys, so it is taken for another program's and ${governing ?? "no configuration"} governs here; ` +
      `if it is meant for tackle, its key ${slip} is not one tackle reads.`,
  );
}

/** Whether a JSON file's top level has a key tackle reads (permissions, approval, mcpServers...). */
export function hasTackleKeys(file: string): boolean {
  try {
    const raw: unknown = parseJsonc(readFileSync(file, "utf8"), [], { allowTrailingComma: true });
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) return false;
    // As the configuration is read: any case, and the specs' other names (`DocumentsDirectory`).
    const canonical = canonicalKeys(raw) as Record<string, unknown>;
    return Object.keys(canonical).some((key) => topLevelKeys().includes(key) && key !== "$schema");
  } catch {
    return false;
  }
}

/**
 * Loads configuration: `file` if given, else the one {@link findConfigFile} finds from `dir`.
 * `.env` in the workspace supplies secrets (tackle's own settings aside); the environment wins over it.
 */
export function loadConfig(
  options: { file?: string; dir?: string; workspace?: string; env?: NodeJS.ProcessEnv; warn?: (message: string) => void } = {},
): LoadedConfig {
  const dir = path.resolve(options.workspace ?? options.dir ?? process.cwd());
  const file = options.file ? path.resolve(options.file) : findConfigFile(dir);
  const warn = options.warn ?? warnOnStderr;
  if (!options.file) warnPassedOver(path.join(dir, "config.json"), file, warn);
  let config: TackleConfig = {};
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      throw new Error(`Cannot read configuration ${file}: ${(err as Error).message}`);
    }
    // Comments and trailing commas are allowed (`tackle init` writes a commented file).
    const errors: ParseError[] = [];
    const raw: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
    if (errors.length > 0) {
      const first = errors[0]!;
      const line = text.slice(0, first.offset).split("\n").length;
      throw new Error(`Configuration ${file} is not valid JSON: ${printParseErrorCode(first.error)} on line ${line}.`);
    }
    config = parseConfig(raw, file);
    warnUnknownKeys(canonicalKeys(raw), file, warn);
  }
  const workspace = path.resolve(
    options.workspace ?? (config.workingDirectory ? path.resolve(file ? path.dirname(file) : dir, config.workingDirectory) : dir),
  );
  const dotenvFile = [path.join(workspace, DOTENV_FILE), ...(file ? [path.join(path.dirname(file), DOTENV_FILE)] : [])].find((f) =>
    existsSync(f),
  );
  const fromFile = dotenvFile ? ownSettingsLeftOut(parseDotenv(readFileSync(dotenvFile)), dotenvFile, warn) : {};
  return { config, ...(file ? { file } : {}), workspace, env: { ...fromFile, ...(options.env ?? process.env) } };
}

/**
 * Variables that decide how tackle itself runs rather than which services it reaches: where approvals,
 * answers and shared rules are kept (TACKLE_STORE), where telemetry goes (OTEL_*), where its state
 * is (XDG_*). A `.env` beside the workspace can be written by a command the mode approved, so they
 * are taken from tackle's own environment only: else such a command could point the next start at
 * a store it wrote, holding rules and answers that approve its own calls.
 */
const OWN_SETTINGS = /^(TACKLE_|OTEL_|XDG_)/i;

function ownSettingsLeftOut(values: Record<string, string>, file: string, warn: (message: string) => void): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (!OWN_SETTINGS.test(key)) kept[key] = value;
    else if (!warnedKeys.has(`${file}\0${key}`)) {
      warnedKeys.add(`${file}\0${key}`);
      warn(`${file}: ${key} is ignored; tackle takes its own settings from its environment, never from a file in the workspace.`);
    }
  }
  return kept;
}
