import type { Logger } from "../core/logger.js";
import type { AnyTool } from "../core/tool.js";

/**
 * Runs each tool's `prepare`, one after another, so first calls start as later ones do (the shell's
 * grammar compiled, its sandbox checked). A failure only loses the head start: the call does the
 * work itself and reports its own errors.
 */
export async function prepareTools(tools: readonly AnyTool[], logger: Logger, stopped: () => boolean): Promise<void> {
  for (const tool of tools) {
    if (stopped()) return;
    try {
      await tool.prepare?.();
    } catch (err) {
      logger.debug("preparing a tool failed", { tool: tool.name, error: String(err) });
    }
  }
}
