import path from "node:path";
import { dropRelativePathEntries } from "../process/safe-path.js";
import { workspaceFoldersOnPath } from "../workspace/path-folders.js";
import type { AnyTool, ChangeAnswer, ChangeRequest, Progress, ToolAccess, ToolContext } from "../core/tool.js";
import type { ToolRegistry } from "../registry/registry.js";
import type { ApprovedBy, ToolExecutionResult, ToolOutcome } from "../core/result.js";
import { ToolError, toToolError } from "../core/errors.js";
import { CallContext } from "../core/context.js";
import { CallMemo } from "../core/call-memo.js";
import type { ToolCall } from "../core/tool-call.js";
import { silentLogger, type Logger } from "../core/logger.js";
import { Workspace } from "../workspace/workspace.js";
import { decide, rememberedRules, type ApprovalMode, type Decision, type PolicyInput } from "./policy.js";
import { confirmationOf, type CallConfirmation } from "./confirmation.js";
import { parseRule, parseRules, restrictionCovers, ruleCovers, type ParsedRules, type PermissionRules, type Rule } from "./rules.js";
import { noApprover, type Approver, type ApprovalRequest, type ApprovalResponse } from "./approver.js";
import { backoffDelay, DEFAULT_RETRY, sleep, type RetryOptions } from "./retry.js";
import { retryPlanOf } from "../core/retry-plan.js";
import { cacheKey, DEFAULT_CACHE, ResultCache, type CacheOptions } from "./cache.js";
import { EventBus, type ToolEvent, type ToolEventListener, type ToolEventType } from "./events.js";
import { AuditLog, auditRecord } from "./audit-log.js";
import { redact } from "../core/redact.js";
import type { AuditSink, SharedRules } from "./shared-rules.js";
import type { CallTracer } from "./call-tracer.js";
import { Metrics } from "./metrics.js";
import { capOutput, DEFAULT_MAX_OUTPUT_CHARS, jsonSizeBound, OutputSpill } from "./output-cap.js";
import type { ReadLedger } from "./read-ledger.js";
import type { HookCall, Hooks } from "./hooks.js";
import { formatMs } from "../core/format-ms.js";
import type { ChangeJournal, Snapshot } from "../workspace/change-journal.js";
import { markUntrusted } from "../core/untrusted.js";
import { anyOverlap, EVERYTHING } from "./paths-overlap.js";
import { outputMismatch } from "./output-check.js";
import { LazyAbort } from "./lazy-abort.js";
import { judgeChanges } from "./change-approval.js";
import { parseCall, type Prepared } from "./parse-call.js";
import { addExtras, cancelled, changedList, changedPaths, elapsedMs, errorOutcome, rejected, withWait } from "./outcomes.js";

export type { ToolCall } from "../core/tool-call.js";

export interface RunOptions {
  signal?: AbortSignal;
  /** What the agent was doing, shown to the person asked to approve the call. */
  context?: string;
  /** Output chunks as the tool produces them. */
  onOutput?: (chunk: string, toolCallId: string) => void;
  onEvent?: ToolEventListener;
  /**
   * Whose "always" approvals apply: a server with several clients gives each its own scope, so
   * one person's "always" never approves another's calls. Default: one scope for the runner.
   */
  scope?: string;
}

export interface ToolRunnerOptions {
  registry: ToolRegistry;
  /** What is auto-approved; default `safe`. */
  approval?: ApprovalMode;
  /** Asks a person. Without one, every call that needs approval is rejected. */
  approver?: Approver;
  rules?: PermissionRules;
  /** The workspace root (or a Workspace); default the current directory. */
  workspace?: Workspace | string;
  /** Path of the JSONL audit log, or an AuditLog. */
  log?: string | AuditLog;
  logger?: Logger;
  /** Time limit for a call whose tool sets none. Default 5 minutes. */
  timeoutMs?: number;
  /** Cap on what reaches the model per call. Default 100,000 characters. */
  maxOutputChars?: number;
  /** Largest argument object accepted, as JSON. Default 5 MiB. */
  maxArgsBytes?: number;
  retry?: Partial<RetryOptions> | false;
  cache?: Partial<CacheOptions> | false;
  /**
   * Tools that may still join the registry (MCP servers still connecting): a call to a tool not
   * registered yet waits for this promise, up to `toolWaitMs`, before it is refused as unknown.
   */
  toolsPending?: () => Promise<unknown> | undefined;
  /** How long a call waits for `toolsPending`. Default 5 s. */
  toolWaitMs?: number;
  /**
   * Workspace files the configuration runs (MCP servers' scripts, language servers, custom tools'
   * programs): writing one needs a person, as for a Makefile. See config/code-files.ts.
   */
  codeFiles?: readonly string[];
  /**
   * Check every structured result against the tool's output schema, and turn a mismatch into an
   * error. Default: on when TACKLE_CHECK_OUTPUT=1 (tackle's own tests set it).
   */
  checkOutput?: boolean;
  /**
   * "Always" rules shared with other runners (the shared store's desk): applied to every call
   * beside this runner's own, and where an answer given at the shared desk keeps its rules.
   */
  sharedRules?: SharedRules;
  /**
   * An audit trail written before each call runs and before its outcome is returned: a call whose
   * start cannot be written does not run.
   */
  audit?: AuditSink;
  /** One span per call (OpenTelemetry, when configured). */
  tracer?: CallTracer;
  /**
   * The stale-edit guard's memory: with one, an edit of a file changed on disk since the model
   * last read it (or never read) runs only when a person approves it, shown the diff against what
   * the file holds now; otherwise it fails with STALE_FILE. `openSession` gives every session one
   * (configuration: `"staleEditGuard": false` turns it off); a runner built by hand has none unless given.
   */
  reads?: ReadLedger | false;
  /**
   * Keeps every change a call makes to the workspace's files, so a person can undo it (`tackle
   * undo`). `openSession` gives every session one (configuration: `"checkpoints": false` turns it off).
   */
  journal?: ChangeJournal;
  /** Commands run before and after calls (configuration's `hooks`; see Hooks). */
  hooks?: Hooks;
}

const DEFAULT_TIMEOUT_MS = 300_000;
const DEFAULT_TOOL_WAIT_MS = 5_000;
const DEFAULT_MAX_ARGS_BYTES = 5 * 1024 * 1024;
const PARTIAL_OUTPUT_CHARS = 20_000;
/** A retry needs at least this long before the deadline to be worth starting. */
const MIN_ATTEMPT_MS = 100;
/** Structured results may be this many times the text cap: they repeat the text with fields around it. */
const STRUCTURED_ALLOWANCE = 2;

/**
 * Runs tool calls: look up → validate → policy → approval → execute → outcome. Nothing a tool
 * does escapes as an exception; every call ends in a {@link ToolOutcome}.
 *
 * Making one drops empty and relative entries from the process's PATH (`.`, a trailing `:`):
 * tools start programs in the workspace, where such an entry would find one a tool wrote.
 */
export class ToolRunner {
  readonly registry: ToolRegistry;
  readonly workspace: Workspace;
  readonly metrics = new Metrics();
  readonly events = new EventBus();
  approval: ApprovalMode;
  readonly #approver: Approver;
  readonly #rules: ParsedRules;
  /** What people approved with "always", per approval scope (see RunOptions.scope). */
  readonly #sessionAllows = new Map<string, Rule[]>();
  readonly #shared: SharedRules | undefined;
  readonly #audit: AuditSink | undefined;
  readonly #tracer: CallTracer | undefined;
  readonly #log?: AuditLog;
  readonly #ownsLog: boolean;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  readonly #maxOutput: number;
  readonly #maxArgsBytes: number;
  readonly #toolsPending: (() => Promise<unknown> | undefined) | undefined;
  readonly #toolWaitMs: number;
  /** The servers calls last waited on, and until when. */
  #arriving: { pending: Promise<unknown>; until: number; settled: boolean } | undefined;
  readonly #checkOutput: boolean;
  readonly #codeFiles: ReadonlySet<string> | undefined;
  readonly #retry: RetryOptions | false;
  readonly #cache?: ResultCache;
  readonly #spill: OutputSpill;
  readonly #reads: ReadLedger | undefined;
  /** Every change calls make to the workspace's files, for `undo` (see ToolRunnerOptions.journal). */
  readonly journal: ChangeJournal | undefined;
  /** Each running call's snapshot, which changes it asks to apply later (run_code) join. */
  readonly #snapshots = new Map<string, Snapshot>();
  readonly #hooks: Hooks | undefined;
  #active = 0;

  constructor(options: ToolRunnerOptions) {
    dropRelativePathEntries();
    this.registry = options.registry;
    this.approval = options.approval ?? "safe";
    this.#approver = options.approver ?? noApprover;
    this.#rules = parseRules(options.rules);
    this.#shared = options.sharedRules;
    this.#audit = options.audit;
    this.#tracer = options.tracer;
    this.#spill = new OutputSpill();
    this.#reads = options.reads || undefined;
    this.journal = options.journal;
    this.#hooks = options.hooks;
    const ws = options.workspace instanceof Workspace ? options.workspace : Workspace.open(options.workspace ?? process.cwd());
    // Read tools may page through outputs that were cut; nothing else is added to the boundary.
    this.workspace = ws.withExtraRoot({ path: this.#spill.path, writable: false });
    this.#ownsLog = typeof options.log === "string";
    if (options.log) this.#log = typeof options.log === "string" ? new AuditLog(options.log) : options.log;
    this.#logger = options.logger ?? silentLogger;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxOutput = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
    this.#maxArgsBytes = options.maxArgsBytes ?? DEFAULT_MAX_ARGS_BYTES;
    this.#toolsPending = options.toolsPending;
    this.#toolWaitMs = options.toolWaitMs ?? DEFAULT_TOOL_WAIT_MS;
    this.#checkOutput = options.checkOutput ?? process.env.TACKLE_CHECK_OUTPUT === "1";
    const onPath = workspaceFoldersOnPath(this.workspace.root).map((dir) => `${dir}/`);
    const code = [...(options.codeFiles ?? []), ...onPath];
    this.#codeFiles = code.length ? new Set(code) : undefined;
    this.#retry = options.retry === false ? false : { ...DEFAULT_RETRY, ...options.retry };
    if (options.cache !== false) this.#cache = new ResultCache(this.workspace.root, { ...DEFAULT_CACHE, ...options.cache });
  }

  /** Subscribes to events of one type, or "*" for all. Returns an unsubscribe function. */
  on(type: ToolEventType | "*", listener: ToolEventListener): () => void {
    return this.events.on(type, listener);
  }

  /** Rules a person granted with "always" during this session, in one approval scope. */
  sessionAllows(scope = ""): readonly Rule[] {
    return this.#sessionAllows.get(scope) ?? [];
  }

  /** What "always" approved for calls in `scope`: the scope's own grants and the shared desk's. */
  #granted(scope: string | undefined): readonly Rule[] {
    const own = this.sessionAllows(scope);
    const shared = this.#shared?.list();
    return shared?.length ? [...own, ...shared] : own;
  }

  /** Runs one call to its outcome. Never throws. */
  async run(call: ToolCall, options: RunOptions = {}): Promise<ToolOutcome> {
    if (!this.#tracer) return await this.#runOne(call, options);
    const span = this.#tracer.start(String(call.name ?? ""), call.args);
    const outcome = await this.#runOne(call, options);
    span.end(outcome);
    return outcome;
  }

  async #runOne(call: ToolCall, options: RunOptions): Promise<ToolOutcome> {
    const arriving = this.#toolsArriving([String(call.name ?? "")]);
    if (arriving) await arriving;
    const prepared = parseCall(call, this.registry, this.#maxArgsBytes, this.#stillArriving());
    if (!("tool" in prepared)) return this.#finish(prepared, call.args, options);
    // Awaited, not returned: a returned promise costs two more turns of the queue than an awaited one.
    return await this.#runPrepared(prepared, options);
  }

  /**
   * Runs several calls: independent ones in parallel, while calls that write the same path (or
   * write what another reads) run in the order given. Outcomes come back in the calls' order.
   */
  async runAll(calls: readonly ToolCall[], options: RunOptions = {}): Promise<ToolOutcome[]> {
    await this.#toolsArriving(calls.map((c) => String(c.name ?? "")));
    const arriving = this.#stillArriving();
    const prepared = calls.map((c) => parseCall(c, this.registry, this.#maxArgsBytes, arriving));
    const accesses = await Promise.all(prepared.map(async (p) => ("tool" in p ? (p.access = await this.#accessOf(p)) : {})));
    const running: Array<Promise<ToolOutcome>> = [];
    prepared.forEach((p, i) => {
      const waitFor = running.filter((_, j) => conflicts(accesses[i]!, accesses[j]!));
      const span = this.#tracer?.start(String(calls[i]!.name ?? ""), calls[i]!.args);
      const outcome = Promise.allSettled(waitFor).then(() =>
        "tool" in p ? this.#runPrepared(p, options) : this.#finish(p, calls[i]!.args, options),
      );
      running.push(span ? outcome.then((o) => (span.end(o), o)) : outcome);
    });
    return Promise.all(running);
  }

  /** Flushes the audit log and removes saved outputs. */
  async close(): Promise<void> {
    if (this.#log && this.#ownsLog) await this.#log.close();
    this.#spill.dispose();
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * Lets tools still on their way (an MCP server connecting) join before calls name them: settles
   * once every named tool is registered, nothing more is coming, or the wait is over. The wait is
   * counted from the first call that waited on the same servers, so calls never wait twice. Undefined
   * when there is nothing to wait for, so the common call does not take a turn of the queue.
   */
  #toolsArriving(names: readonly string[]): Promise<void> | undefined {
    const present = () => names.every((name) => this.registry.has(name));
    if (!this.#toolsPending || present()) return undefined;
    const pending = this.#toolsPending();
    if (!pending) return undefined;
    if (this.#arriving?.pending !== pending) {
      const arriving = { pending, until: Date.now() + this.#toolWaitMs, settled: false };
      const settle = () => (arriving.settled = true);
      pending.then(settle, settle);
      this.#arriving = arriving;
    }
    const left = this.#arriving.until - Date.now();
    if (left <= 0) return undefined;
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      };
      const timer = setTimeout(done, left);
      const unsubscribe = this.registry.onChange(() => {
        if (present()) done();
      });
      pending.then(done, done);
    });
  }

  /** Whether tools may still join after the wait: servers were still connecting when it ended. */
  #stillArriving(): boolean {
    return this.#arriving !== undefined && !this.#arriving.settled;
  }

  /**
   * Waits as a call naming these tools would: until each is registered, nothing more is coming
   * (every MCP server has connected or failed), or the wait (`toolWaitMs`) is over. Built-in tools
   * are there at once, so naming only them never waits.
   */
  async waitForTools(names: readonly string[]): Promise<void> {
    await this.#toolsArriving(names);
  }

  /**
   * Spec 001's `getConfirmation`, answered by the runner for one call: what it will do in its
   * current mode, with its rules and what people approved for the session (in `options.scope`) —
   * run it, ask a person, or refuse it — and a message naming the arguments ("Run \`rm -rf build\`",
   * "Overwrite notes.txt"). Nothing runs and nobody is asked. An unknown tool or invalid arguments
   * throw the ToolError the call would end in. Before-hooks are not consulted: they run with the call.
   */
  async getConfirmation(name: string, args: unknown = {}, options: Pick<RunOptions, "scope"> = {}): Promise<CallConfirmation> {
    await this.#toolsArriving([name]);
    const p = parseCall({ name, args }, this.registry, this.#maxArgsBytes, this.#stillArriving());
    if (!("tool" in p)) throw new ToolError(p.error!.code, p.error!.message);
    const ctx = this.#context(p, new AbortController(), {});
    const decision = await decide(this.#policyInput(p, ctx, this.approval, this.#granted(options.scope)));
    const subjects = p.tool.scope ? await p.tool.scope.subjects(p.args, ctx) : [];
    return confirmationOf(decision, p.tool, this.registry.canonicalName(p.name) ?? p.name, p.args, subjects, ctx);
  }

  /** What the policy judges a call by: the tool, its names and family, its arguments, the rules and the mode. */
  #policyInput(p: Prepared, ctx: ToolContext, mode: ApprovalMode, sessionAllows: readonly Rule[]): PolicyInput {
    return {
      tool: p.tool,
      names: this.registry.namesOf(p.name),
      family: this.registry.familyOf(p.name),
      writeFamily: this.registry.writeFamily(),
      args: p.args,
      ctx,
      mode,
      rules: this.#rules,
      sessionAllows,
      codeFiles: this.#codeFiles,
    };
  }

  /** The files a call will write as they are before it runs, for the journal (never fails the call). */
  #snapshot(journal: ChangeJournal, writes: readonly string[], id: string, into?: Snapshot): Snapshot | undefined {
    try {
      const absolutes = writes.filter((w) => w !== EVERYTHING).map((w) => path.resolve(this.workspace.root, w));
      const snap = journal.snapshot(absolutes, into);
      this.#snapshots.set(id, snap);
      return snap;
    } catch (err) {
      this.#logger.warn(`the change journal could not read what a call will change: ${toToolError(err).message}`);
      return undefined;
    }
  }

  #keepChanges(journal: ChangeJournal, snap: Snapshot, p: Prepared): void {
    this.#snapshots.delete(p.id);
    try {
      journal.record(snap, p.name, p.id);
    } catch (err) {
      this.#logger.warn(`the change journal could not keep what ${p.name} changed: ${toToolError(err).message}`);
    }
  }

  async #accessOf(p: Prepared): Promise<ToolAccess> {
    try {
      if (p.tool.access) return await p.tool.access(p.args, this.#context(p, new AbortController(), {}));
    } catch {
      // falls through to the conservative default
    }
    return p.tool.effect === "read" || p.tool.effect === "network" ? {} : { writes: [EVERYTHING] };
  }

  #context(
    p: Prepared,
    abort: AbortSignal | AbortController | LazyAbort,
    options: RunOptions,
    partial?: { text: string },
    approvedBy?: ApprovedBy,
  ): CallContext {
    const denied = (subject: string) => {
      const kind = p.tool.scope?.kind;
      const names = this.registry.namesOf(p.name);
      const family = this.registry.familyOf(p.name);
      const rule = kind ? this.#rules.deny.find((r) => restrictionCovers(r, names, family, kind, [subject])) : undefined;
      return rule ? `denied by the rule "${rule.source}"` : undefined;
    };
    const onOutput = (chunk: string) => {
      if (partial) {
        partial.text += chunk;
        if (partial.text.length > PARTIAL_OUTPUT_CHARS * 2) partial.text = partial.text.slice(-PARTIAL_OUTPUT_CHARS);
      }
      options.onOutput?.(chunk, p.id);
      if (options.onEvent || this.events.hasListeners) {
        this.events.emit({ type: "tool.output", toolCallId: p.id, tool: p.name, chunk }, options.onEvent);
      }
    };
    const onProgress = (progress: Progress) => {
      this.events.emit({ type: "tool.progress", toolCallId: p.id, tool: p.name, ...progress }, options.onEvent);
    };
    return new CallContext(
      p.id,
      abort,
      this.workspace,
      this.#logger,
      p.memo,
      p.tool.maxOutputChars ?? this.#maxOutput,
      denied,
      onOutput,
      onProgress,
      // Only execute may change what it found; the hooks before it judge the call as it was asked.
      partial ? (request) => this.#confirmChanges(p, options, request) : undefined,
      approvedBy,
      this.#reads,
    );
  }

  /**
   * Judges changes a call made while running (run_code's edits to its copy of the workspace) as
   * writes of those paths, and asks a person when policy says so: the call's approval covered
   * running it, not what it then wrote.
   */
  async #confirmChanges(p: Prepared, options: RunOptions, request: ChangeRequest): Promise<ChangeAnswer> {
    // The files as they are before these changes land, for the journal.
    const snap = this.#snapshots.get(p.id);
    if (snap && this.journal) this.#snapshot(this.journal, request.paths, p.id, snap);
    const names = [
      ...this.registry.namesOf(p.name),
      ...(this.registry.namesOf("write_file").length ? this.registry.namesOf("write_file") : ["write_file"]),
    ];
    const verdict = judgeChanges(
      this.workspace.root,
      request.paths,
      names,
      [...names, ...this.registry.writeFamily()],
      this.approval,
      this.#rules,
      this.#granted(options.scope),
      this.#codeFiles,
    );
    if (verdict.kept.length === 0) return { approved: false, refused: verdict.refused, reason: "nothing may be applied" };
    if (!verdict.ask)
      return { approved: true, refused: verdict.refused, reason: this.approval === "all" ? "approval mode all" : "allowed by a rule" };
    let preview: string;
    try {
      preview = await request.preview(verdict.kept);
    } catch (err) {
      preview = `(no preview: ${toToolError(err).message})`;
    }
    let response;
    try {
      response = await this.#approver(
        {
          toolCallId: p.id,
          stepId: p.id,
          tool: p.name,
          args: p.args,
          effect: "write",
          reason: verdict.ask,
          description: p.tool.description,
          preview,
          ...(options.context ? { context: options.context } : {}),
        },
        options.signal ?? new AbortController().signal,
      );
    } catch (err) {
      response = { approved: false, message: `asking for approval failed (${toToolError(err).message})`, automatic: true };
    }
    this.events.emit(answerEvent(p, response), options.onEvent);
    if (response.approved) return { approved: true, refused: verdict.refused, reason: "approved by the user" };
    return {
      approved: false,
      refused: verdict.refused,
      reason: response.automatic ? `not approved: ${response.message ?? verdict.ask}` : "the user did not approve them",
      ...(response.message && !response.automatic ? { message: response.message } : {}),
    };
  }

  async #runPrepared(p: Prepared, options: RunOptions): Promise<ToolOutcome> {
    if (options.signal?.aborted) return this.#finish(cancelled(p), p.args, options);
    if (this.#hooks?.hasBefore) {
      const hooked = await this.#beforeHooks(p, options);
      if ("status" in hooked) return this.#finish(hooked, p.args, options);
      p = hooked;
    }
    const ctx = this.#context(p, options.signal ?? new AbortController(), options);

    let decision: Decision;
    try {
      decision = await decide(this.#policyInput(p, ctx, this.approval, this.#granted(options.scope)));
    } catch (err) {
      return this.#finish(errorOutcome(p.id, p.name, p.started, toToolError(err)), p.args, options);
    }
    const hears = heard(this.events, options);
    if (hears) {
      this.events.emit(
        { type: "tool.call", toolCallId: p.id, tool: p.name, args: p.args, requiresApproval: decision.action === "ask" },
        options.onEvent,
      );
    }

    if (decision.action === "deny") {
      const outcome = rejected(
        p,
        "policy",
        "PERMISSION_DENIED",
        `Not allowed: ${decision.reason}. This is policy, not a failure; do not retry the same call.`,
      );
      if (hears) {
        this.events.emit(
          { type: "tool.approval", toolCallId: p.id, tool: p.name, approved: false, approvedBy: "policy", message: decision.reason },
          options.onEvent,
        );
      }
      return this.#finish(outcome, p.args, options);
    }

    if (decision.action === "allow") {
      if (hears) {
        this.events.emit(
          { type: "tool.approval", toolCallId: p.id, tool: p.name, approved: true, approvedBy: decision.approvedBy },
          options.onEvent,
        );
      }
      return await this.#execute(p, options, decision.approvedBy);
    }
    const answer = await this.#askPerson(p, ctx, decision, options);
    return "outcome" in answer ? this.#finish(answer.outcome, answer.args, options) : this.#execute(answer.approved, options, "user");
  }

  /** The call as it goes on after the before-hooks (their arguments, checked again), or the outcome of their refusal. */
  async #beforeHooks(p: Prepared, options: RunOptions): Promise<Prepared | ToolOutcome> {
    const verdict = await this.#hooks!.before(await this.#hookCall(p), options.signal);
    if ("deny" in verdict) {
      return rejected(
        p,
        "policy",
        "PERMISSION_DENIED",
        `Not allowed: ${verdict.deny}. This is the project's policy, not a failure; do not retry the same call.`,
      );
    }
    if (!verdict.args) return p;
    const checked = p.tool.validate(verdict.args);
    if (!checked.valid) {
      return errorOutcome(
        p.id,
        p.name,
        p.started,
        new ToolError("INVALID_ARGS", `A hook replaced the arguments with invalid ones: ${checked.error}`),
      );
    }
    return withArgs(p, checked.value);
  }

  /** The outcome with what the after-hooks said added for the model, and kept in its metadata. */
  async #afterHooks(p: Prepared, outcome: ToolOutcome, options: RunOptions): Promise<ToolOutcome> {
    const notes = await this.#hooks!.after(await this.#hookCall(p), outcome, options.signal);
    if (!notes.length) return outcome;
    return { ...outcome, content: `${outcome.content}\n\n${notes.join("\n")}`, metadata: { ...outcome.metadata, hooks: notes } };
  }

  /** The preview of the call with other arguments (a person's edit), checked against the schema first. */
  async #previewOf(p: Prepared, args: Record<string, unknown>): Promise<string | undefined> {
    const checked = p.tool.validate(args);
    if (!checked.valid) throw new ToolError("INVALID_ARGS", checked.error);
    const edited = withArgs(p, checked.value);
    return p.tool.preview?.(edited.args, this.#context(edited, new AbortController(), {}));
  }

  /** What a hook hears of a call: its names, arguments and the subjects rules match. */
  async #hookCall(p: Prepared): Promise<HookCall> {
    let subjects: readonly string[] = [];
    try {
      subjects = p.tool.scope ? await p.tool.scope.subjects(p.args, this.#context(p, new AbortController(), {})) : [];
    } catch {
      // no subjects: only rules naming the tool alone match
    }
    return { tool: p.name, names: this.registry.namesOf(p.name), toolCallId: p.id, args: p.args, kind: p.tool.scope?.kind, subjects };
  }

  /**
   * Shows the call (with its preview) to a person and takes the answer: a rejection, or the call
   * to run, with the arguments the person may have edited (checked again against policy).
   */
  async #askPerson(
    p: Prepared,
    ctx: ToolContext,
    decision: Extract<Decision, { action: "ask" }>,
    options: RunOptions,
  ): Promise<{ outcome: ToolOutcome; args: unknown } | { approved: Prepared }> {
    const { tool } = p;
    const emit = (e: ToolEvent) => this.events.emit(e, options.onEvent);
    let preview: string | undefined;
    try {
      preview = tool.preview ? await tool.preview(p.args, ctx) : undefined;
    } catch (err) {
      preview = `(no preview: ${toToolError(err).message})`;
    }
    let always: string[] = [];
    try {
      always = (await rememberedRules(tool, p.args, ctx, p.name)).map((r) => r.source);
    } catch {
      // subjects that cannot be worked out: the front end then names the tool
    }
    let response;
    const asked = performance.now();
    try {
      const request: ApprovalRequest = {
        toolCallId: p.id,
        stepId: p.id,
        tool: p.name,
        args: p.args,
        effect: decision.effect,
        reason: decision.reason,
        description: tool.description,
        ...(preview ? { preview } : {}),
        ...(options.context ? { context: options.context } : {}),
        alwaysRules: always,
      };
      if (tool.preview)
        Object.defineProperty(request, "previewFor", { value: (args: Record<string, unknown>) => this.#previewOf(p, args) });
      response = await this.#approver(request, ctx.signal);
    } catch (err) {
      if (options.signal?.aborted) return { outcome: cancelled(p), args: p.args };
      response = { approved: false, message: `asking for approval failed (${toToolError(err).message})` };
    }
    // The person's time is not the tool's: executionTimeMs starts again once the answer is in.
    p.approvalWaitMs = performance.now() - asked;
    // Files may have moved while the person decided: execute works its paths out afresh.
    p.memo = new CallMemo();
    p.started += p.approvalWaitMs;
    emit(answerEvent(p, response));
    if (!response.approved) {
      const said = !response.message
        ? ""
        : response.automatic
          ? ` It was rejected because ${response.message}.`
          : ` The user said: "${response.message}".`;
      const outcome = rejected(
        p,
        response.automatic ? "policy" : "user",
        "REJECTED",
        `The call to ${p.name} was not approved (${decision.reason}).${said} Do not repeat the same call; change your approach or ask the user.`,
      );
      if (response.message && !response.automatic) outcome.userMessage = response.message;
      return { outcome: withWait(outcome, p), args: p.args };
    }
    if (response.modifiedArgs) {
      const checked = tool.validate(response.modifiedArgs);
      if (!checked.valid) {
        const error = new ToolError("INVALID_ARGS", `The arguments the user edited are invalid: ${checked.error}`);
        return { outcome: errorOutcome(p.id, p.name, p.started, error), args: response.modifiedArgs };
      }
      p = withArgs(p, checked.value);
      ctx = this.#context(p, ctx.signal, options);
      // An edit must not smuggle in what policy denies.
      const again = await decide(this.#policyInput(p, ctx, "all", []));
      if (again.action === "deny") {
        return { outcome: rejected(p, "policy", "PERMISSION_DENIED", `Not allowed: ${again.reason}.`), args: p.args };
      }
    }
    if (response.always) {
      const scope = options.scope ?? "";
      const widened = response.alwaysRule ? await this.#widenedRule(response.alwaysRule, p, ctx) : undefined;
      const granted = widened ? [widened] : await rememberedRules(tool, p.args, ctx, p.name);
      if (response.shared && this.#shared) {
        // Kept for every agent on the desk; if the store cannot take it, this session keeps it.
        try {
          await this.#shared.add(granted, { by: response.by ?? "a person", tool: p.name, toolCallId: p.id });
        } catch (err) {
          this.#logger.warn(`the shared store did not keep an "always" rule: ${toToolError(err).message}`);
          this.#sessionAllows.set(scope, [...this.sessionAllows(scope), ...granted]);
        }
      } else this.#sessionAllows.set(scope, [...this.sessionAllows(scope), ...granted]);
    }
    return { approved: p };
  }

  /** A rule the person chose to widen "always" to, when it is well formed and covers this call. */
  async #widenedRule(text: string, p: Prepared, ctx: ToolContext): Promise<Rule | undefined> {
    try {
      const rule = parseRule(text);
      const subjects = p.tool.scope ? await p.tool.scope.subjects(p.args, ctx) : [];
      return ruleCovers(rule, this.registry.namesOf(p.name), p.tool.scope?.kind, subjects, true) ? rule : undefined;
    } catch {
      return undefined;
    }
  }

  async #execute(p: Prepared, options: RunOptions, approvedBy: ApprovedBy): Promise<ToolOutcome> {
    const { tool } = p;
    const read = tool.effect === "read";
    const cacheable = this.#cache && (tool.cacheable ?? (read && (tool.idempotent ?? true)));
    const key = cacheable ? cacheKey(this.registry.canonicalName(p.name) ?? p.name, p.args) : undefined;
    if (key) {
      const hit = await this.#cache!.get(key);
      if (hit) {
        return this.#finish(
          {
            ...hit,
            toolCallId: p.id,
            toolName: p.name,
            approvedBy,
            executionTimeMs: elapsedMs(p.started),
            metadata: { ...hit.metadata, cached: true },
          },
          p.args,
          options,
        );
      }
    }
    // A read's start row goes in with its end row, in one write (for PostgreSQL one round trip, most
    // of what it adds to a call): a read changes nothing, so one that never ends leaves nothing to
    // trace. Any other call runs only once its start row is in.
    if (this.#audit && !read) {
      try {
        await this.#audit.begin(p.id, p.name, redact(p.args));
      } catch (err) {
        const error = new ToolError(
          "UNAVAILABLE",
          `The audit trail could not be written (${toToolError(err).message}), so the call did not run. Try again later.`,
        );
        return this.#finish(errorOutcome(p.id, p.name, p.started, error), p.args, options);
      }
    }
    if (this.#active++ === 0 && heard(this.events, options))
      this.events.emit({ type: "agent.state", state: "tool_execution" }, options.onEvent);
    try {
      const journal = read ? undefined : this.journal;
      // What the call reads and writes matters to the cache and the journal: a read that is not cached skips it.
      const access = p.access ?? ((this.#cache && (key || !read)) || journal ? await this.#accessOf(p) : {});
      const snap = journal ? this.#snapshot(journal, access.writes ?? [], p.id) : undefined;
      const ran = await this.#attempts(p, options, approvedBy);
      // A read's rows go in before anything keeps its result (the cache) or hands it back.
      const outcome = read && this.#audit ? await this.#readRows(p, ran) : ran;
      if (journal && snap) this.#keepChanges(journal, snap, p);
      if (outcome.status === "success" && key) await this.#cache!.set(key, outcome, access.reads ?? []);
      if (this.#cache && !read) {
        const written = [...(access.writes ?? []), ...changedPaths(outcome)];
        if (written.length) this.#cache.invalidate(written);
        else if (tool.effect !== "network") this.#cache.clear();
      }
      const told = this.#hooks?.hasAfter ? await this.#afterHooks(p, outcome, options) : outcome;
      return this.#finish(withWait(told, p), p.args, options, read);
    } finally {
      if (--this.#active === 0 && heard(this.events, options)) this.events.emit({ type: "agent.state", state: "idle" }, options.onEvent);
    }
  }

  async #attempts(p: Prepared, options: RunOptions, approvedBy: ApprovedBy): Promise<ToolOutcome> {
    const { tool } = p;
    const plan = retryPlanOf(tool);
    const retry = this.#retry && plan.failures ? this.#retry : undefined;
    const limit = tool.timeoutMs?.(p.args) ?? this.#timeoutMs;
    // The limit holds for every try after a failure: a failing site must not cost several limits.
    // Only a try that ran out of time, of a tool whose plan retries timeouts, starts a new one.
    let deadline = Date.now() + limit;
    for (let attempt = 0; ; attempt++) {
      const abort = new LazyAbort();
      const { signal } = options;
      const onAbort = () => abort.abort(signal!.reason);
      let timedOut = false;
      const timer = setTimeout(
        () => {
          timedOut = true;
          abort.abort(new ToolError("TIMEOUT", `timed out after ${formatMs(limit)}`));
        },
        Math.max(0, deadline - Date.now()),
      );
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
      const partial = { text: "" };
      const ctx = this.#context(p, abort, options, partial, approvedBy);
      try {
        const result = await abort.race(tool.execute(p.args, ctx));
        if (result.isError) throw new ToolError(result.errorCode ?? "EXECUTION_ERROR", result.content, { details: { result } });
        const mismatch = this.#checkOutput && !result.isError ? outputMismatch(tool, result.structured) : undefined;
        if (mismatch) {
          throw new ToolError(
            "EXECUTION_ERROR",
            `${p.name} returned a structured result that does not match its output schema: ${mismatch}.`,
            {
              recoverable: false,
            },
          );
        }
        return this.#success(p, result, approvedBy);
      } catch (err) {
        if (options.signal?.aborted) return cancelled(p, approvedBy);
        let error = toToolError(err);
        if (timedOut) {
          const tail = partial.text ? `\nOutput before the time limit:\n${partial.text.slice(-PARTIAL_OUTPUT_CHARS)}` : "";
          error = new ToolError("TIMEOUT", `${p.name} timed out after ${formatMs(limit)}.${tail}`);
        }
        const delay = retry ? backoffDelay(retry, attempt, error.retryAfterMs) : 0;
        const again =
          retry !== undefined &&
          attempt < retry.retries &&
          (timedOut ? plan.timeouts : error.recoverable && Date.now() + delay < deadline - MIN_ATTEMPT_MS);
        if (again) {
          this.#logger.debug(`retrying ${p.name}`, { attempt: attempt + 1, code: error.code });
          try {
            await sleep(delay, options.signal ?? new AbortController().signal);
          } catch {
            return cancelled(p, approvedBy);
          }
          if (timedOut) deadline = Date.now() + limit;
          continue;
        }
        if (attempt > 0) {
          error = new ToolError(error.code, `${error.message} (tried ${attempt + 1} times)`, {
            recoverable: error.recoverable,
            ...(error.details ? { details: error.details } : {}),
          });
        }
        const outcome = errorOutcome(p.id, p.name, p.started, error, approvedBy);
        const result = error.details?.result as ToolExecutionResult | undefined;
        if (result) addExtras(outcome, result);
        return this.#capped(outcome, tool);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      }
    }
  }

  #success(p: Prepared, result: ToolExecutionResult, approvedBy: ApprovedBy): ToolOutcome {
    const outcome: ToolOutcome = {
      status: "success",
      toolCallId: p.id,
      toolName: p.name,
      content: result.content,
      executionTimeMs: elapsedMs(p.started),
      approvedBy,
    };
    addExtras(outcome, result);
    if (result.changedPaths?.length) outcome.metadata = { ...outcome.metadata, changedPaths: result.changedPaths };
    const capped = this.#capped(outcome, p.tool);
    if (result.untrusted) capped.content = markUntrusted(capped.content, result.untrusted.source);
    return capped;
  }

  #capped(outcome: ToolOutcome, tool: AnyTool): ToolOutcome {
    const max = tool.maxOutputChars ?? this.#maxOutput;
    let capped = outcome;
    if (outcome.structured !== undefined) {
      // Structured results reach MCP clients and models too, so they are capped like text: one
      // that would not fit is left out, and the text (cut with a notice) carries the result.
      // Most results are far below the limit, which a bound shows without serialising them.
      const size = jsonSizeBound(outcome.structured, max * STRUCTURED_ALLOWANCE) ?? JSON.stringify(outcome.structured)?.length ?? 0;
      if (size > max * STRUCTURED_ALLOWANCE) {
        const { structured: _dropped, ...rest } = outcome;
        capped = {
          ...rest,
          metadata: { ...outcome.metadata, structuredOmitted: `${size} characters, over the ${max * STRUCTURED_ALLOWANCE} limit` },
        };
      }
    }
    const cut = capOutput(capped.content, max, () => this.#spill.save(capped.toolCallId, capped.content));
    if (!cut.truncated) return capped;
    return { ...capped, content: cut.text, metadata: { ...capped.metadata, truncated: true, fullOutputPath: cut.fullPath } };
  }

  /** The outcome as it is returned, once audited (`audited`: a read, whose rows {@link #readRows} wrote). */
  #finish(outcome: ToolOutcome, args: unknown, options: RunOptions, audited = false): ToolOutcome | Promise<ToolOutcome> {
    if (this.#audit && !audited) return this.#audited(outcome, args, options);
    return this.#told(outcome, args, options);
  }

  /**
   * A read's start and end rows, written together once it has run. As a call whose start row cannot
   * be written does not run, a read whose rows cannot be is not answered: its outcome becomes the error.
   */
  async #readRows(p: Prepared, outcome: ToolOutcome): Promise<ToolOutcome> {
    const record = auditRecord(p.args, outcome, { result: false });
    try {
      // The start row's arguments are the end row's, redacted once.
      await this.#audit!.read(p.id, p.name, record.params, record as unknown as Record<string, unknown>);
      return outcome;
    } catch (err) {
      const error = new ToolError(
        "UNAVAILABLE",
        `The audit trail could not be written (${toToolError(err).message}), so the result was withheld. Try again later.`,
      );
      return { ...errorOutcome(p.id, p.name, 0, error), executionTimeMs: outcome.executionTimeMs };
    }
  }

  /**
   * The outcome, once its row is in the audit trail: a result nobody could trace is not handed back
   * untraced, so every result a client received has its row even when the process is killed right
   * after replying.
   */
  async #audited(outcome: ToolOutcome, args: unknown, options: RunOptions): Promise<ToolOutcome> {
    const record = auditRecord(args, outcome, { result: false }) as unknown as Record<string, unknown>;
    try {
      await this.#audit!.end(outcome.toolCallId, outcome.toolName, record);
    } catch (err) {
      this.#logger.warn(`the audit trail did not take the outcome of ${outcome.toolCallId}: ${toToolError(err).message}`);
      outcome = { ...outcome, metadata: { ...outcome.metadata, auditFailed: toToolError(err).message } };
    }
    return this.#told(outcome, args, options);
  }

  #told(outcome: ToolOutcome, args: unknown, options: RunOptions): ToolOutcome {
    this.metrics.record(outcome);
    this.#log?.record(args, outcome);
    if (!heard(this.events, options)) return outcome;
    // Spec 002's order: the result, then the files it changed.
    this.events.emit({ type: "tool.result", toolCallId: outcome.toolCallId, tool: outcome.toolName, outcome }, options.onEvent);
    for (const change of changedList(outcome)) {
      this.events.emit(
        { type: "file.changed", toolCallId: outcome.toolCallId, tool: outcome.toolName, path: change.path, operation: change.operation },
        options.onEvent,
      );
    }
    return outcome;
  }
}

/** The event that says how a person (or tackle, when nobody could be asked) answered. */
function answerEvent(p: Prepared, response: ApprovalResponse): ToolEvent {
  return {
    type: "tool.approval",
    toolCallId: p.id,
    tool: p.name,
    approved: response.approved,
    approvedBy: response.automatic ? "policy" : "user",
    ...(response.message ? { message: response.message } : {}),
  };
}

/** Whether anyone hears this call's events: most calls have nobody, and then none are built. */
function heard(events: EventBus, options: RunOptions): boolean {
  return options.onEvent !== undefined || events.hasListeners;
}

/** The call with other (validated) arguments: what its hooks worked out from the old ones is dropped. */
function withArgs(p: Prepared, args: unknown): Prepared {
  return { ...p, args: args as Record<string, unknown>, access: undefined, memo: new CallMemo() };
}

function conflicts(a: ToolAccess, b: ToolAccess): boolean {
  const aw = a.writes ?? [];
  const bw = b.writes ?? [];
  if (aw.length === 0 && bw.length === 0) return false;
  return anyOverlap(aw, [...bw, ...(b.reads ?? [])]) || anyOverlap(bw, a.reads ?? []);
}
