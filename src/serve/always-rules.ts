import { CallMemo } from "../core/call-memo.js";
import { silentLogger } from "../core/logger.js";
import { rememberedRules } from "../runtime/policy.js";
import type { ToolRunner } from "../runtime/runner.js";

/**
 * The rules "always" would remember for this call, as the runner computes them, so the page can
 * say what it grants before the person grants it. Empty when the tool is gone or its subjects
 * cannot be worked out.
 */
export async function alwaysRules(runner: ToolRunner, toolName: string, args: unknown): Promise<string[]> {
  const tool = runner.registry.get(toolName);
  if (!tool) return [];
  try {
    const rules = await rememberedRules(
      tool,
      args,
      {
        toolCallId: "always-preview",
        signal: AbortSignal.timeout(5_000),
        workspace: runner.workspace,
        log: silentLogger,
        memo: new CallMemo(),
        onOutput: () => undefined,
        onProgress: () => undefined,
      },
      toolName,
    );
    return rules.map((r) => r.source);
  } catch {
    return [];
  }
}
