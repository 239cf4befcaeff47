import type { ToolGroup } from "../group.js";
import { sandboxSettingsFrom } from "../../sandbox/config.js";
import { createRunCodeTool } from "./run-code.js";

export { createRunCodeTool, type RunCodeOptions } from "./run-code.js";

/**
 * The code group: `run_code`. Always registered: where bubblewrap is missing the tool
 * still exists and says how to install it, rather than vanishing without a word. The `sandbox`
 * section of tackle.config.json sets network access, limits, the bwrap and python paths.
 */
export const codeTools: ToolGroup = ({ config }) => {
  const sandbox = sandboxSettingsFrom(config);
  // bubblewrap is probed on the first sandboxed call, never while tackle starts.
  return [createRunCodeTool({ sandbox })];
};
