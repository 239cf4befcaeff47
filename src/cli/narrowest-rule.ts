import { CallMemo } from "../core/call-memo.js";
import { silentLogger } from "../core/logger.js";
import type { AnyTool, ToolContext } from "../core/tool.js";
import type { ToolRunner } from "../runtime/runner.js";

/**
 * The narrowest allow rules that would let this very call run: `tool(subject)` for each path,
 * command or domain it touches, or just `tool` when it has no subjects. Saved "always" answers and
 * hints use these, so trusting `git status` never trusts `git push`.
 */
export async function narrowestRules(tool: AnyTool, name: string, args: unknown, runner: ToolRunner): Promise<string[]> {
  if (!tool.scope) return [name];
  const ctx: ToolContext = {
    toolCallId: "narrowest-rule",
    signal: new AbortController().signal,
    workspace: runner.workspace,
    log: silentLogger,
    memo: new CallMemo(),
    onOutput: () => undefined,
    onProgress: () => undefined,
  };
  let subjects: string[];
  try {
    subjects = await tool.scope.subjects(args, ctx);
  } catch {
    return [name];
  }
  return subjects.length === 0 ? [name] : [...new Set(subjects.map((s) => `${name}(${s})`))];
}
