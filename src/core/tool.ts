import type { Stats } from "node:fs";
import type { Effect, ToolAnnotations } from "./effect.js";
import type { ApprovedBy, ToolExecutionResult } from "./result.js";
import type { ToolWorkspace } from "./tool-workspace.js";
import type { Logger } from "./logger.js";
import type { CallMemo } from "./call-memo.js";

/** A JSON Schema object, as exported to model APIs. */
export type JsonSchema = Record<string, unknown>;

/** Spec 001's ToolDefinition: what a model API needs to offer the tool. */
export interface ToolDefinition {
  name: string;
  displayName?: string;
  description: string;
  parameters: JsonSchema;
}

/** Whether a call needs a person, with what they are told. */
export interface ToolConfirmation {
  required: boolean;
  message?: string;
  type?: "read" | "write" | "execute" | "destructive";
}

export type ValidationResult<A> = { valid: true; value: A; error?: undefined } | { valid: false; error: string; issues: ValidationIssue[] };

export interface ValidationIssue {
  /** Dotted path of the offending field, or "" for the whole argument object. */
  path: string;
  message: string;
}

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** What a tool's execute receives besides its arguments. */
export interface ToolContext {
  toolCallId: string;
  /** Aborted on cancellation or timeout; long work must stop when it fires. */
  signal: AbortSignal;
  workspace: ToolWorkspace;
  /** Streams output as it arrives. */
  onOutput: (chunk: string) => void;
  onProgress: (progress: Progress) => void;
  log: Logger;
  /**
   * Shared by every hook of this call: what scope or assess worked out (a resolved path, a parsed
   * command) execute reuses. Use `perCall` or `memo.once`.
   */
  memo: CallMemo;
  /**
   * The most characters of content the runner passes on to the model for this call; a tool that
   * can size its answer (web_fetch's maxChars) keeps within it and says so truthfully.
   */
  outputLimit?: number;
  /**
   * Why a deny rule refuses `subject` (a path, command or domain met while running, such as a
   * redirect's host), or undefined. Tools check what they reach beyond their arguments with it.
   */
  denied?: (subject: string) => string | undefined;
  /**
   * Asks for changes the call worked out while running (run_code's edits to its copy of the
   * workspace) to be approved as writes of those paths are: refused paths are never applied,
   * the rest only when policy or a person approves. Absent outside a runner.
   */
  confirmChanges?: (request: ChangeRequest) => Promise<ChangeAnswer>;
  /**
   * Who approved the call being executed: a person, a rule, or the mode on its own (`auto`).
   * The shell gives its sandbox the network only for what a person or a rule approved. Absent
   * in the hooks that judge the call, and outside a runner.
   */
  approvedBy?: ApprovedBy;
  /**
   * What the model has seen of files in this session, for the stale-edit guard: read_file
   * records what it read, edits refuse files changed since (or never read). Absent outside a
   * runner and when the guard is off.
   */
  reads?: FileReads;
}

/** The files a session's model has seen, and in what state (see ToolContext.reads). */
export interface FileReads {
  /** The model saw `absolute` as it stands now (it read it, or wrote it itself); `stat` when the caller has it. */
  saw(absolute: string, stat?: Stats): void;
  /** Why changing `absolute` would overwrite what the model has not seen, or undefined when it is as last seen (or missing). */
  staleness(absolute: string): string | undefined;
}

/** Changes a call made to a copy of the workspace, to apply once approved. */
export interface ChangeRequest {
  /** Workspace-relative paths the changes touch. */
  paths: string[];
  /** What the person sees for the paths that may be applied (a unified diff). */
  preview: (paths: readonly string[]) => Promise<string>;
}

/** The answer to a {@link ChangeRequest}. */
export interface ChangeAnswer {
  approved: boolean;
  /** Paths never applied, whoever approves, with why. */
  refused: Array<{ path: string; why: string }>;
  /** Who approved, or why not. */
  reason: string;
  /** What the person said, if they rejected with a message. */
  message?: string;
}

/**
 * Spec 001's options for calling `execute` directly: any part of the context, and `cwd`, the
 * directory the call works in (its workspace boundary) when no `workspace` is given.
 */
export type ToolExecutionOptions = Partial<ToolContext> & { cwd?: string };

/**
 * A dynamic judgement of one call: commands and URLs differ in risk from call to call.
 * `deny` refuses in every mode; `ask` asks even when an allow rule matches (only `all` mode
 * skips it); `effect` replaces the tool's static effect for this call.
 */
export interface Assessment {
  effect?: Effect;
  deny?: string;
  ask?: string;
  /**
   * A file that may hold secrets the call reaches (a shell command reading `.env`). Refused in
   * every mode, as the file tools refuse it, unless an allow rule covering this call names the
   * file (`shell(cat .env)`); a wildcard (`shell(cat *)`, `shell(*)`) never releases it.
   */
  secret?: string;
  /** The file `secret` speaks of, as named; without it no rule releases the secret. */
  secretFile?: string;
  /**
   * Workspace-relative paths the call is known to write (a command's redirections, the operands
   * of commands that write files). One that is code needs a person in every mode, as write_file's
   * path does, unless an allow rule covering the call names it.
   */
  writes?: string[];
  /**
   * Why this call needs a person whatever the mode and the allow rules say (a command asking to
   * run outside the sandbox); only a deny rule or a denial comes before it.
   */
  confirm?: string;
}

/** What rules match against: a tool's paths, commands or domains for this call. */
export interface ToolScope<A> {
  kind: "path" | "command" | "domain";
  subjects(args: A, ctx: ToolContext): string[] | Promise<string[]>;
}

/** Paths (relative to the workspace) a call reads and writes; lets the scheduler run calls in parallel safely. */
export interface ToolAccess {
  reads?: string[];
  writes?: string[];
}

/** A tool as the registry and runner see it. Create one with defineTool (or convert another form: src/compat, a plain object). */
export interface Tool<A = Record<string, unknown>> {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly effect: Effect;
  /** JSON Schema of the arguments. */
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly annotations: ToolAnnotations;
  readonly definition: ToolDefinition;
  /** Checks and normalises arguments (defaults applied); errors name the field and what was expected. */
  validate(args: unknown): ValidationResult<A>;
  /** Runs the tool. Arguments are validated first unless the runner already did. */
  execute(args: A, ctx?: ToolExecutionOptions): Promise<ToolExecutionResult>;
  /**
   * Spec 001's word on approval. A class tool's own (BaseTool) reaches the policy as
   * `needsApproval`; the tools `createBuiltinTools()` returns answer with the decision a runner
   * in the configured mode takes (await it; `ToolRunner.getConfirmation` answers for any runner).
   */
  getConfirmation?(args: A): ToolConfirmation | Promise<ToolConfirmation>;
  /**
   * The tool's own word on approval, the one the policy hears in mode `safe`: whether this call
   * needs a person where the mode would not ask, as a boolean or with what the person is told.
   */
  needsApproval?(args: A, ctx: ToolContext): boolean | ToolConfirmation | Promise<boolean | ToolConfirmation>;
  /**
   * The call in a few words a person reads before approving it, naming what it touches ("Overwrite
   * notes.txt", "Run `make`"); `subjects` are its scope's. Without it the title and arguments stand in.
   */
  describeCall?(args: A, subjects: readonly string[], ctx: ToolContext): string;
  /** What the person sees before approving: a diff for edits. */
  preview?(args: A, ctx: ToolContext): string | undefined | Promise<string | undefined>;
  assess?(args: A, ctx: ToolContext): Assessment | undefined | Promise<Assessment | undefined>;
  readonly scope?: ToolScope<A>;
  access?(args: A, ctx: ToolContext): ToolAccess | Promise<ToolAccess>;
  /** A per-call time limit in ms; the runner aborts the call after it. */
  timeoutMs?(args: A): number | undefined;
  /**
   * Work a process's first call would otherwise do before its answer (loading a grammar, checking
   * a sandbox), done ahead: `tackle mcp` calls it once, while it waits for its client after start-up.
   */
  prepare?(): Promise<void>;
  /** Cap on what reaches the model; the runner's default applies when absent. */
  readonly maxOutputChars?: number;
  /** Other names it answers to (spec names: `edit` for `edit_file`); a registry resolves them unlisted. */
  readonly aliases?: readonly string[];
  /** Safe to retry and to cache; defaults to `effect === "read"`. Shown as the MCP annotation `idempotentHint`. */
  readonly idempotent?: boolean;
  /**
   * A call that ran out of time is tried again with a fresh limit (idempotent tools only); default
   * for tools whose effect is `network`. See `retryPlanOf`.
   */
  readonly retryTimeouts?: boolean;
  readonly cacheable?: boolean;
}

/** Any tool, whatever its argument type. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>;
