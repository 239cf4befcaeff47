import { nearestNames } from "../core/names.js";
import { MANIFESTS, namesOf } from "./manifests.js";

/** What of the configuration says which tools exist besides the built-in ones. */
export interface ToolSources {
  toolModules?: unknown;
  mcpServers?: unknown;
  tools?: unknown;
}

/**
 * Why a rule's tool (`shel` in `shel(ls)`) names no tool, with the nearest name, or undefined when
 * it is known: a built-in tool or alias, a configured MCP server's `server__tool`, a tool declared
 * in the configuration, or a wildcard. Tools from `toolModules` are known only once loaded, so with
 * those configured nothing is said.
 */
export function unknownRuleTool(tool: string, config: ToolSources): string | undefined {
  if (tool.includes("*") || config.toolModules) return undefined;
  const servers = Object.keys((config.mcpServers as Record<string, unknown> | undefined) ?? {});
  const declared = Object.keys((config.tools as Record<string, unknown> | undefined) ?? {});
  const builtin = MANIFESTS.flatMap(namesOf);
  if (builtin.includes(tool) || declared.includes(tool)) return undefined;
  if (tool.includes("__") && servers.includes(tool.split("__")[0]!)) return undefined;
  const near = nearestNames(tool, [...builtin, ...declared], 1)[0];
  return `no tool is named "${tool}"${near ? `; did you mean "${near}"?` : ""} (an MCP server's tools are named server__tool)`;
}
