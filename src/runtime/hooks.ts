import { spawn } from "../process/child-process.js";
import { z } from "zod";
import type { HooksConfig } from "../config/hooks-config.js";
import type { ToolOutcome } from "../core/result.js";
import type { ToolScope } from "../core/tool.js";
import { formatMs } from "../core/format-ms.js";
import { BoundedOutput } from "../process/bounded-output.js";
import { commandEnv } from "../process/command-env.js";
import { killProcessTree } from "../process/process-tree.js";
import { parseRule, ruleCovers, type Rule } from "./rules.js";

type HookConfig = NonNullable<HooksConfig["beforeCall"]>[number];

/** What a before-hook said: run the call (with new arguments, perhaps), or refuse it. */
export type BeforeVerdict = { deny: string; hook: string } | { args?: Record<string, unknown> };

/** The call a hook hears about. */
export interface HookCall {
  tool: string;
  names: readonly string[];
  toolCallId: string;
  args: Record<string, unknown>;
  kind: ToolScope<unknown>["kind"] | undefined;
  subjects: readonly string[];
}

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_OUTPUT_BYTES = 64 * 1024;
/** Exit status by which a hook refuses a call (before) or sends the model feedback (after), as Claude Code's hooks do. */
const BLOCK = 2;

const BeforeAnswer = z.looseObject({
  decision: z.enum(["allow", "deny"]).optional(),
  reason: z.string().optional(),
  args: z.record(z.string(), z.unknown()).optional(),
});
const AfterAnswer = z.looseObject({ message: z.string().optional() });

interface Hook {
  config: HookConfig;
  rules: Rule[] | undefined;
  label: string;
}

/** The hook's command as argv. */
const argvOf = (command: HookConfig["command"]) => (typeof command === "string" ? ["/bin/sh", "-c", command] : command);

/**
 * Commands configured to run before and after tool calls (`hooks.beforeCall` / `afterCall`),
 * matched by rules as permissions are. Each gets the call as JSON on stdin. A before-hook may
 * refuse the call (exit 2 with the reason on stderr, or `{"decision":"deny","reason"}` on stdout)
 * or replace its arguments (`{"args":{...}}`); an after-hook sees the outcome, and what it says
 * (exit 2's stderr, or `{"message"}`) reaches the model. A hook that fails, or runs past its time,
 * refuses the call it was to check (before) or is reported in the outcome (after).
 */
export class Hooks {
  readonly #before: Hook[];
  readonly #after: Hook[];

  constructor(
    config: HooksConfig,
    private readonly workspace: string,
  ) {
    const load = (list: HookConfig[] | undefined, event: string) =>
      (list ?? []).map((c, i) => {
        const label = `${event}[${i}] (${argvOf(c.command).join(" ").slice(0, 60)})`;
        const rules = c.match === undefined ? undefined : (Array.isArray(c.match) ? c.match : [c.match]).map((m) => ruleOf(m, label));
        return { config: c, rules, label };
      });
    this.#before = load(config.beforeCall, "hooks.beforeCall");
    this.#after = load(config.afterCall, "hooks.afterCall");
  }

  /** Whether any before-hook could apply to `tool` (so the runner works out subjects only then). */
  get hasBefore(): boolean {
    return this.#before.length > 0;
  }

  get hasAfter(): boolean {
    return this.#after.length > 0;
  }

  /** Runs the before-hooks that match, in order; the first refusal stops the call. Arguments a hook replaces reach the next. */
  async before(call: HookCall, signal?: AbortSignal): Promise<BeforeVerdict> {
    let args = call.args;
    let replaced = false;
    for (const hook of this.#before) {
      if (!matches(hook, call)) continue;
      const run = await runHook(
        hook,
        { event: "beforeCall", tool: call.tool, toolCallId: call.toolCallId, args, workspace: this.workspace },
        this.workspace,
        signal,
      );
      if (run.failure) return { deny: `the hook ${hook.label} failed (${run.failure}), so the call was not run`, hook: hook.label };
      if (run.code === BLOCK) return { deny: run.stderr.trim() || `the hook ${hook.label} refused it`, hook: hook.label };
      if (run.code !== 0) {
        return { deny: `the hook ${hook.label} failed (exit ${run.code}${tail(run.stderr)}), so the call was not run`, hook: hook.label };
      }
      const answer = parseAnswer(BeforeAnswer, run.stdout);
      if (answer === "invalid") {
        return { deny: `the hook ${hook.label} printed something that is not its JSON answer, so the call was not run`, hook: hook.label };
      }
      if (answer?.decision === "deny") return { deny: answer.reason ?? `the hook ${hook.label} refused it`, hook: hook.label };
      if (answer?.args) {
        args = answer.args;
        replaced = true;
      }
    }
    return replaced ? { args } : {};
  }

  /** Runs the after-hooks that match; returns what they have to say to the model, and their failures. */
  async after(call: HookCall, outcome: ToolOutcome, signal?: AbortSignal): Promise<string[]> {
    const notes: string[] = [];
    const seen = {
      status: outcome.status,
      content: outcome.content,
      ...(outcome.error ? { error: outcome.error } : {}),
      ...(outcome.structured !== undefined ? { structured: outcome.structured } : {}),
    };
    for (const hook of this.#after) {
      if (!matches(hook, call)) continue;
      const run = await runHook(
        hook,
        { event: "afterCall", tool: call.tool, toolCallId: call.toolCallId, args: call.args, outcome: seen, workspace: this.workspace },
        this.workspace,
        signal,
      );
      if (run.failure) notes.push(`The hook ${hook.label} failed: ${run.failure}.`);
      else if (run.code === BLOCK) notes.push(`The hook ${hook.label} says: ${run.stderr.trim()}`);
      else if (run.code !== 0) notes.push(`The hook ${hook.label} failed (exit ${run.code}${tail(run.stderr)}).`);
      else {
        const answer = parseAnswer(AfterAnswer, run.stdout);
        if (answer === "invalid") notes.push(`The hook ${hook.label} printed something that is not its JSON answer.`);
        else if (answer?.message) notes.push(`The hook ${hook.label} says: ${answer.message}`);
      }
    }
    return notes;
  }
}

function ruleOf(text: string, label: string): Rule {
  try {
    return parseRule(text);
  } catch (err) {
    throw new Error(`${label}: match "${text}" is not a rule (${(err as Error).message}).`);
  }
}

function matches(hook: Hook, call: HookCall): boolean {
  return !hook.rules || hook.rules.some((r) => ruleCovers(r, call.names, call.kind, call.subjects, true));
}

/** Empty stdout is no answer; anything else must be the hook's JSON. */
function parseAnswer<T>(schema: z.ZodType<T>, stdout: string): T | undefined | "invalid" {
  const text = stdout.trim();
  if (!text) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : "invalid";
  } catch {
    return "invalid";
  }
}

const tail = (stderr: string) => {
  const t = stderr.trim();
  return t ? `: ${t.length > 500 ? `…${t.slice(-500)}` : t}` : "";
};

interface HookRun {
  code: number;
  stdout: string;
  stderr: string;
  failure?: string;
}

/** Runs one hook with `input` as JSON on stdin, in the workspace, within its time. */
function runHook(hook: Hook, input: object, cwd: string, signal?: AbortSignal): Promise<HookRun> {
  const [file, ...args] = argvOf(hook.config.command);
  const limit = hook.config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve) => {
    const stdout = new BoundedOutput(MAX_OUTPUT_BYTES);
    const stderr = new BoundedOutput(MAX_OUTPUT_BYTES);
    let failure: string | undefined;
    const child = spawn(file!, args, {
      cwd,
      env: commandEnv({ TACKLE_HOOK_EVENT: (input as { event: string }).event }),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    const stop = (why: string) => {
      failure ??= why;
      if (child.pid !== undefined) void killProcessTree(child.pid);
    };
    const timer = setTimeout(() => stop(`it ran past its ${formatMs(limit)}`), limit);
    const onAbort = () => stop("the call was cancelled");
    signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (c: Buffer) => stdout.push(c));
    child.stderr.on("data", (c: Buffer) => stderr.push(c));
    child.stdin.on("error", () => {}); // a hook that does not read its input is not a failure
    child.on("error", (err) => {
      failure ??= err.message;
    });
    child.on("close", (code, sig) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (sig && !failure) failure = `it was killed by ${sig}`;
      resolve({ code: code ?? -1, stdout: stdout.text(), stderr: stderr.text(), ...(failure ? { failure } : {}) });
    });
    child.stdin.end(JSON.stringify(input));
  });
}
