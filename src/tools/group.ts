import type { AnyTool } from "../core/tool.js";
import type { Logger } from "../core/logger.js";
import type { TackleConfig } from "../config/config.js";
import type { SearchProvider } from "./web/search-provider.js";

/** What a tool group's factory gets: configuration, secrets, where the workspace is. */
export interface GroupContext {
  config: TackleConfig;
  env: Readonly<Record<string, string | undefined>>;
  workspace: string;
  logger: Logger;
  /** Registers work to do when the session closes (stopping servers a group started). */
  onClose?: (close: () => Promise<void>) => void;
  /** The backend web_search uses instead of Brave (then web_search needs no BRAVE_API_KEY). */
  searchProvider?: SearchProvider;
}

/**
 * A group of built-in tools. Returns no tools when the group's credentials are absent
 * (spec 000's conditional registration).
 */
export type ToolGroup = (ctx: GroupContext) => AnyTool[] | Promise<AnyTool[]>;

/**
 * What the rest of tackle knows of a group before loading it: its tools' names (keyed for the
 * `TOOL` constant), the specs' other names for them, variants under a spec's name, and how to load
 * it. Every list of names (TOOL, the aliases, what `tackle call` loads) is derived from these.
 */
export interface GroupManifest<N extends Record<string, string> = Record<string, string>> {
  readonly names: N;
  /** Other names for the same tools: alias → canonical. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** Tools registered under a spec's name with other defaults (`bash`): resolved everywhere, listed only in their toolset. */
  readonly variants?: readonly string[];
  /**
   * Secrets the group needs, every one set and not blank, to offer any tool (spec 000's conditional
   * registration): without them its code is not even loaded.
   */
  readonly needs?: readonly string[];
  /** Imports the group's code: only when one of its tools is wanted. */
  load(): Promise<ToolGroup>;
}
