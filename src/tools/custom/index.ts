import { z } from "zod";
import { formatIssues, describeIssues, asSentence } from "../../core/schema.js";
import type { AnyTool } from "../../core/tool.js";
import type { ToolGroup } from "../group.js";
import { commandTool, CommandToolSchema } from "./command-tool.js";
import { loadToolModules } from "./tool-modules.js";
import { launchSettings } from "../shell/sandbox-launcher.js";
import { shellSettingsFrom } from "../shell/settings.js";

const ToolModulesSetting = z.union([z.boolean(), z.array(z.string().min(1))]).optional();

/**
 * Tools declared in configuration under `tools` (spec 002's custom tools): each runs a program
 * with the call's arguments as argv entries, never as shell text, in the shell's sandbox, and is
 * approved by its effect like any other tool. A malformed entry stops start-up with the reason. With `toolModules`, the
 * tools the workspace's own modules export join them (see tool-modules.ts).
 */
export const customTools: ToolGroup = ({ config, workspace }) => {
  const raw = (config as Record<string, unknown>).tools;
  const tools: AnyTool[] = [];
  if (raw !== undefined) {
    const parsed = z.record(z.string(), CommandToolSchema).safeParse(raw);
    if (!parsed.success)
      throw new Error(`"tools" in the configuration is invalid: ${asSentence(formatIssues(describeIssues(parsed.error.issues)))}`);
    const settings = launchSettings(shellSettingsFrom(config), config);
    for (const [name, entry] of Object.entries(parsed.data)) tools.push(commandTool(name, entry, settings));
  }
  const modules = ToolModulesSetting.safeParse((config as Record<string, unknown>).toolModules);
  if (!modules.success) throw new Error(`"toolModules" must be true or a list of files and folders in the workspace.`);
  if (!modules.data) return tools;
  return loadToolModules(modules.data, workspace).then((loaded) => [...tools, ...loaded]);
};
