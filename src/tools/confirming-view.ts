import type { AnyTool } from "../core/tool.js";
import { toolView } from "../core/tool-view.js";
import type { CallConfirmation } from "../runtime/confirmation.js";
import { ToolRunner } from "../runtime/runner.js";
import type { ToolRegistry } from "../registry/registry.js";
import type { LoadedConfig } from "../config/config.js";
import { configuredPolicy } from "../runtime/configured-policy.js";
import type { ApprovalMode } from "../core/approval-mode.js";

/** What answers for a call as a runner would, without running it (`ToolRunner.getConfirmation`). */
export interface Judge {
  getConfirmation(name: string, args: unknown): Promise<CallConfirmation>;
}

/**
 * `tool` as a view that answers spec 001's `getConfirmation(args)` with `judge()`'s decision (asked
 * for at the first question), with `extra` members besides. The shared tool itself is unchanged.
 */
export function confirmingView(tool: AnyTool, judge: () => Judge, extra: Readonly<Record<string, unknown>> = {}): AnyTool {
  return toolView(tool, { ...extra, getConfirmation: (args: unknown) => judge().getConfirmation(tool.name, args) });
}

/**
 * A judge of its own for tools no runner judges yet: a runner over `registry()` with the
 * configuration's rules, in `approval` mode (default: the configuration's, else `safe`). It runs
 * nothing and asks nobody; it is made at the first question.
 */
export function configuredJudge(registry: () => ToolRegistry, loaded: LoadedConfig, approval?: ApprovalMode): () => Judge {
  let judge: ToolRunner | undefined;
  return () => (judge ??= new ToolRunner({ registry: registry(), ...configuredPolicy(loaded, approval), cache: false, retry: false }));
}
