import type { AnyTool } from "../core/tool.js";
import { createLogger, type Logger } from "../core/logger.js";
import { loadConfig } from "../config/config.js";
import type { GroupContext, ToolGroup } from "./group.js";
import { toSearchProvider, type SearchProvider, type SpecSearchProvider } from "./web/search-provider.js";
import { aliasesOf } from "./names.js";
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
 * Configuration and secrets are read from `workspace` (default: the current directory).
 */
export function createBuiltinTools(
  options: { workspace?: string; logger?: Logger; searchProvider?: SearchProvider | SpecSearchProvider } = {},
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
  // Registered by hand (spec 001: registry.registerAll(createBuiltinTools())), each still answers to the specs' names for it.
  for (const tool of tools) {
    const aliases = aliasesOf(tool.name);
    if (aliases.length > 0) Object.defineProperty(tool, "aliases", { value: aliases, configurable: true });
  }
  return tools;
}
