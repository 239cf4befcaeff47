import { CallMemo } from "../core/call-memo.js";
import { silentLogger } from "../core/logger.js";
import type { AnyTool, ToolContext } from "../core/tool.js";
import { decide } from "../runtime/policy.js";
import { parseRules, type PermissionRules } from "../runtime/rules.js";
import type { ToolRunner } from "../runtime/runner.js";

function contextFor(runner: ToolRunner): ToolContext {
  return {
    toolCallId: "narrowest-rule",
    signal: new AbortController().signal,
    workspace: runner.workspace,
    log: silentLogger,
    memo: new CallMemo(),
    onOutput: () => undefined,
    onProgress: () => undefined,
  };
}

/**
 * The narrowest allow rules that would let this very call run: `tool(subject)` for each path,
 * command or domain it touches, or just `tool` when it has no subjects. Saved "always" answers and
 * hints use these, so trusting `git status` never trusts `git push`.
 */
export async function narrowestRules(tool: AnyTool, name: string, args: unknown, runner: ToolRunner): Promise<string[]> {
  if (!tool.scope) return [name];
  let subjects: string[];
  try {
    subjects = await tool.scope.subjects(args, contextFor(runner));
  } catch {
    return [name];
  }
  return subjects.length === 0 ? [name] : [...new Set(subjects.map((s) => `${name}(${s})`))];
}

/**
 * The allow rules a person could add so this call runs unasked: the narrowest ones if they are
 * enough, else the tool's catch-all, else none (the call asks whatever rules say: a command
 * whose name is only known when it runs, a destructive one). Checked with the policy itself, so a
 * hint never names a rule that would not help.
 */
export async function rulesThatAllow(
  tool: AnyTool,
  name: string,
  args: unknown,
  runner: ToolRunner,
  names: readonly string[],
  configured: PermissionRules | undefined,
): Promise<string[]> {
  for (const candidate of [await narrowestRules(tool, name, args, runner), [name]]) {
    const rules = parseRules({ ...configured, allow: [...(configured?.allow ?? []), ...candidate] });
    try {
      const decision = await decide({ tool, names, args, ctx: contextFor(runner), mode: runner.approval, rules, sessionAllows: [] });
      if (decision.action === "allow") return candidate;
    } catch {
      return [];
    }
  }
  return [];
}

/**
 * Why the configured allow rules cannot let this call run unasked (what the policy says instead),
 * or undefined when they do: `tackle rules add 'shell(rm notes.txt)'` warns that a destructive
 * command asks whatever rules say.
 */
export async function whyNotAllowed(
  tool: AnyTool,
  names: readonly string[],
  args: unknown,
  runner: ToolRunner,
  configured: PermissionRules | undefined,
): Promise<string | undefined> {
  const decision = await decide({
    tool,
    names,
    args,
    ctx: contextFor(runner),
    mode: "ask",
    rules: parseRules(configured),
    sessionAllows: [],
  });
  return decision.action === "allow" ? undefined : decision.reason;
}
