import { readFileSync } from "node:fs";
import { parse as parseJsonc } from "jsonc-parser";
import { nearestNames } from "../core/names.js";
import { parseRule } from "../runtime/rules.js";
import { MANIFESTS, namesOf } from "../tools/manifests.js";

/**
 * Why a rule may name no tool (`shel(ls)`), with the nearest name, or undefined when its tool is
 * known: a built-in tool or alias, a configured MCP server's `server__tool`, a tool declared in the
 * configuration, or a wildcard. Tools from `toolModules` are known only once loaded, so with those
 * configured nothing is said.
 */
export function unknownToolIn(rule: string, configFile: string): string | undefined {
  const { tool } = parseRule(rule);
  if (tool.includes("*")) return undefined;
  let config: Record<string, unknown> = {};
  try {
    config = (parseJsonc(readFileSync(configFile, "utf8"), [], { allowTrailingComma: true }) ?? {}) as Record<string, unknown>;
  } catch {
    // no configuration yet: only the built-in tools are known
  }
  if (config.toolModules) return undefined;
  const servers = Object.keys((config.mcpServers as Record<string, unknown> | undefined) ?? {});
  const declared = Object.keys((config.tools as Record<string, unknown> | undefined) ?? {});
  const builtin = MANIFESTS.flatMap(namesOf);
  if (builtin.includes(tool) || declared.includes(tool)) return undefined;
  const prefix = tool.split("__")[0]!;
  if (tool.includes("__") && servers.includes(prefix)) return undefined;
  const near = nearestNames(tool, [...builtin, ...declared], 1)[0];
  return `no tool is named "${tool}"${near ? `; did you mean "${near}"?` : ""} (an MCP server's tools are named server__tool)`;
}
