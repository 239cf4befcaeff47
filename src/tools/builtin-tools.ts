import type { AnyTool } from "../core/tool.js";
import { createLogger, type Logger } from "../core/logger.js";
import { loadConfig } from "../config/config.js";
import type { GroupContext, ToolGroup } from "./group.js";
import { toSearchProvider, type SearchProvider, type SpecSearchProvider } from "./web/search-provider.js";
import { aliasesOf } from "./names.js";
import { ToolRegistry } from "../registry/registry.js";
import { configuredJudge, confirmingView } from "./confirming-view.js";
import type { ApprovalMode } from "../core/approval-mode.js";
import { fileTools } from "./fs/index.js";
import { searchTools } from "./search/index.js";
import { shellTools } from "./shell/index.js";
import { codeTools } from "./code/index.js";
import { webTools } from "./web/index.js";
import { linkedinTools } from "./linkedin/index.js";
import { googleTools } from "./google/index.js";
import { anthropicTools } from "./anthropic/index.js";
import { gitTools } from "./git/index.js";
import { lspTools } from "./lsp/index.js";
import { customTools } from "./custom/index.js";

/** The built-in groups, in listing order, loaded up front (`lazy-groups.ts` loads them on demand). */
export const BUILTIN_GROUPS: readonly ToolGroup[] = [
  fileTools,
  searchTools,
  shellTools,
  codeTools,
  webTools,
  linkedinTools,
  googleTools,
  anthropicTools,
  gitTools,
  lspTools,
  customTools,
];

/**
 * The built-in tools whose groups are switched on, for `registry.registerAll(createBuiltinTools())`.
 * Configuration and secrets are read from `workspace` (default: the current directory). Each
 * tool's `getConfirmation(args)` resolves to what a runner in `approval` mode (default: the
 * configuration's, else `safe`) with the configuration's rules will do with the call.
 */
export function createBuiltinTools(
  options: { workspace?: string; logger?: Logger; searchProvider?: SearchProvider | SpecSearchProvider; approval?: ApprovalMode } = {},
): AnyTool[] {
  const loaded = loadConfig(options.workspace ? { workspace: options.workspace } : {});
  const ctx: GroupContext = {
    config: loaded.config,
    env: loaded.env,
    workspace: loaded.workspace,
    logger: options.logger ?? createLogger("warn"),
    ...(options.searchProvider ? { searchProvider: toSearchProvider(options.searchProvider) } : {}),
  };
  const tools: AnyTool[] = [];
  for (const group of BUILTIN_GROUPS) {
    const made = group(ctx);
    if (made instanceof Promise)
      throw new Error("A tool group loads asynchronously; use await builtinTools(...) or createRegistry() instead.");
    tools.push(...made);
  }
  // Views, not the shared tools themselves: each still answers to the specs' names for it (spec 001:
  // registry.registerAll(createBuiltinTools())), and its confirmation is this call's.
  const judge = configuredJudge(() => registryOf(tools), loaded, options.approval);
  return tools.map((tool) => {
    const aliases = aliasesOf(tool.name);
    return confirmingView(tool, judge, aliases.length > 0 ? { aliases } : {});
  });
}

function registryOf(tools: readonly AnyTool[]): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of tools) {
    registry.register(tool);
    for (const alias of aliasesOf(tool.name)) registry.alias(alias, tool.name);
  }
  return registry;
}
