import type { ToolRegistry } from "../registry/registry.js";
import type { AnyTool } from "../core/tool.js";

/** What the adapters accept: a registry (its listed tools) or a list of tools. */
export type ToolSource = ToolRegistry | readonly AnyTool[];

export function toolsOf(source: ToolSource): readonly AnyTool[] {
  return Array.isArray(source) ? source : (source as ToolRegistry).list();
}

/** Parses a model's JSON argument text; malformed text is passed on as-is for the runner to refuse. */
export function parseArguments(text: string | undefined | null): unknown {
  if (text === undefined || text === null || text === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
