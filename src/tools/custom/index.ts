import { z } from "zod";
import { formatIssues, describeIssues } from "../../core/schema.js";
import type { AnyTool } from "../../core/tool.js";
import type { ToolGroup } from "../group.js";
import { commandTool, CommandToolSchema } from "./command-tool.js";

/**
 * Tools declared in configuration under `tools` (spec 002's custom tools): each runs a program
 * with the call's arguments as argv entries, never as shell text, and is approved by its effect
 * like any other tool. A malformed entry stops start-up with the reason.
 */
export const customTools: ToolGroup = ({ config }) => {
  const raw = (config as Record<string, unknown>).tools;
  if (raw === undefined) return [];
  const parsed = z.record(z.string(), CommandToolSchema).safeParse(raw);
  if (!parsed.success) throw new Error(`"tools" in the configuration is invalid: ${formatIssues(describeIssues(parsed.error.issues))}.`);
  const tools: AnyTool[] = [];
  for (const [name, entry] of Object.entries(parsed.data)) tools.push(commandTool(name, entry));
  return tools;
};
