import { ToolRegistry } from "../registry/registry.js";
import type { AnyTool } from "../core/tool.js";
import { createLogger, type Logger } from "../core/logger.js";
import { loadConfig, type LoadedConfig } from "../config/config.js";
import type { GroupContext, ToolGroup } from "./group.js";
import { ALIASES, aliasesOf, VARIANTS } from "./names.js";
import { TOOLSETS, type Toolset } from "./toolsets.js";
import { LAZY_GROUPS, loadGroups } from "./lazy-groups.js";
import { toSearchProvider, type SearchProvider, type SpecSearchProvider } from "./web/search-provider.js";
import { configuredJudge, confirmingView, type Judge } from "./confirming-view.js";

export interface CreateRegistryOptions {
  /** Overrides the configuration's toolset. */
  toolset?: Toolset;
  logger?: Logger;
  /** Groups to assemble instead of the built-in ones (tests, embedders). */
  groups?: readonly ToolGroup[];
  /**
   * Only these tools are needed (`tackle call read_file`): when all are built-in, only the groups
   * that provide them are loaded. Default: every group.
   */
  only?: readonly string[];
  /** Receives what must run when the session closes (servers a group started). */
  onClose?: (close: () => Promise<void>) => void;
  /**
   * web_search's backend instead of Brave, web_search then always offered: `{ name, search }`, or
   * spec 000's `{ providerName, searchAsync }` (its shape checked here).
   */
  searchProvider?: SearchProvider | SpecSearchProvider;
  /**
   * What answers each built-in tool's `getConfirmation(args)`: the runner that will run the calls
   * (`openSession` passes its own). Default: a runner of the registry's own in the configured mode.
   */
  judge?: () => Judge;
}

const BUILTIN_NAMES = new Set(LAZY_GROUPS.flatMap((g) => g.names));

/** Every built-in tool whose group is switched on, by name. */
export async function builtinTools(ctx: GroupContext, groups?: readonly ToolGroup[]): Promise<Map<string, AnyTool>> {
  const tools = new Map<string, AnyTool>();
  for (const group of groups ?? (await loadGroups())) {
    for (const tool of await group(ctx)) {
      if (tools.has(tool.name)) throw new Error(`Two built-in tools are named "${tool.name}".`);
      tools.set(tool.name, tool);
    }
  }
  return tools;
}

/**
 * Assembles a registry from configuration: the built-in groups whose credentials are present,
 * arranged as the chosen toolset. The default lists each tool once under its canonical name;
 * the specs' other names (`edit`, `bash`, `shell_exec`, `search_files`) still resolve.
 */
export async function createRegistry(loaded: LoadedConfig = loadConfig(), options: CreateRegistryOptions = {}): Promise<ToolRegistry> {
  const logger = options.logger ?? createLogger("warn");
  const ctx: GroupContext = {
    config: loaded.config,
    env: loaded.env,
    workspace: loaded.workspace,
    logger,
    ...(options.onClose ? { onClose: options.onClose } : {}),
    ...(options.searchProvider ? { searchProvider: toSearchProvider(options.searchProvider) } : {}),
  };
  const tools = await builtinTools(ctx, options.groups ?? (await loadGroups(options.only, loaded.env)));
  const toolset = options.toolset ?? (loaded.config.toolset as Toolset | undefined) ?? "default";
  const registry = new ToolRegistry();
  const judge = options.judge ?? configuredJudge(() => registry, loaded);
  const listedNames = toolset === "default" ? undefined : new Set(TOOLSETS[toolset]);
  const isListed = (name: string) => (listedNames ? listedNames.has(name) : !VARIANTS.has(name) && !(name in ALIASES));
  for (const [name, tool] of tools) {
    const aliases = aliasesOf(name);
    // Tools declared in configuration belong to every toolset: the person asked for them by name.
    const declared = !BUILTIN_NAMES.has(name);
    const wanted = declared || [name, ...aliases].some((n) => (listedNames ? listedNames.has(n) : !VARIANTS.has(n)));
    // A preset holds exactly its spec's tools; variants resolve everywhere but are listed only where named.
    if (!wanted && !VARIANTS.has(name)) continue;
    registry.register(confirmingView(tool, judge), { listed: declared || isListed(name) });
    for (const alias of aliases) registry.alias(alias, name, { listed: isListed(alias) });
  }
  return registry;
}
