import { readFileSync } from "node:fs";
import { parse as parseJsonc } from "jsonc-parser";
import { parseRule } from "../runtime/rules.js";
import { unknownRuleTool, type ToolSources } from "../tools/rule-tool-names.js";

/** Why `rule` names no tool (see {@link unknownRuleTool}), judged by the configuration in `configFile`. */
export function unknownToolIn(rule: string, configFile: string): string | undefined {
  let config: ToolSources = {};
  try {
    config = (parseJsonc(readFileSync(configFile, "utf8"), [], { allowTrailingComma: true }) ?? {}) as ToolSources;
  } catch {
    // no configuration yet: only the built-in tools are known
  }
  return unknownRuleTool(parseRule(rule).tool, config);
}
