import type { ToolGroup } from "../group.js";
import type { AnyTool } from "../../core/tool.js";
import { BackgroundJobs } from "./background-jobs.js";
import { createBackgroundTool } from "./shell-background.js";
import { launchSettings } from "./sandbox-launcher.js";
import { shellSettingsFrom, type ShellSettings } from "./settings.js";
import { createShellTool } from "./shell.js";

export { analyzeCommand, type CommandAnalysis, type SimpleCommand } from "./analysis/command-analysis.js";
export { judgeCommand, toAssessment, type CommandJudgement } from "./command-policy.js";
export { BackgroundJobs } from "./background-jobs.js";
export { runCommand, type CommandResult } from "./run-command.js";

/** Builds the shell tools with their own background-job table. */
export function createShellTools(
  settings: ShellSettings,
  config: Record<string, unknown> = {},
): { tools: AnyTool[]; jobs: BackgroundJobs } {
  const launch = launchSettings(settings, config);
  const jobs = new BackgroundJobs(settings.maxBackgroundJobs, settings.backgroundBufferChars, settings.killGraceMs);
  const common = { settings, launch };
  const tools = [
    createShellTool({ name: "shell", title: "Shell", descriptionFile: "shell.txt", defaultTimeoutMs: 120_000, ...common }),
    // spec 000's name and its 30-second default; listed only in the assistant preset
    createShellTool({ name: "bash", title: "Bash", descriptionFile: "bash.txt", defaultTimeoutMs: 30_000, ...common }),
    createBackgroundTool(jobs, settings, launch),
  ];
  return { tools, jobs };
}

/** `shell` (alias `shell_exec`), `bash` and `shell_background`. */
export const shellTools: ToolGroup = (ctx) => createShellTools(shellSettingsFrom(ctx.config), ctx.config).tools;
