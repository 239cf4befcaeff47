import type { ToolContext } from "../core/tool.js";
import type { ResolvedPath } from "../workspace/workspace.js";

/**
 * Resolves a path argument inside the workspace (INVALID_PATH / PERMISSION_DENIED otherwise),
 * once per call: scope, access, approval, preview and execute all get the first answer.
 */
export function resolveArg(ctx: ToolContext, input: string, write = false): ResolvedPath {
  // Synchronous like the resolution itself, so the policy's check of a call takes no turn of the queue.
  return ctx.memo.once(`resolve:${write}:${input}`, () => ctx.workspace.resolveSync(input, { write }));
}
