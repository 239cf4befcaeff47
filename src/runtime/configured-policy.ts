import type { LoadedConfig } from "../config/config.js";
import { configuredCodeFiles } from "../config/code-files.js";
import type { ApprovalMode } from "../core/approval-mode.js";
import { Workspace } from "../workspace/workspace.js";
import type { ToolRunnerOptions } from "./runner.js";

/**
 * What a runner decides calls by, as the configuration sets it: the workspace with the folders its
 * `roots` add, the approval mode (`approval` overrides it; default `safe`), the rules, and the files
 * the configuration runs. A session's runner and a runner that only answers getConfirmation share it.
 */
export function configuredPolicy(
  loaded: LoadedConfig,
  approval?: ApprovalMode,
): Required<Pick<ToolRunnerOptions, "workspace" | "approval" | "codeFiles">> & Pick<ToolRunnerOptions, "rules"> {
  return {
    // Folders beside the workspace the configuration lets tools reach (a repository above it, shared docs).
    workspace: loaded.config.roots?.length ? Workspace.open(loaded.workspace, loaded.config.roots) : loaded.workspace,
    approval: approval ?? (loaded.config.approval as ApprovalMode | undefined) ?? "safe",
    ...(loaded.config.permissions ? { rules: loaded.config.permissions } : {}),
    codeFiles: configuredCodeFiles(loaded.config, loaded.workspace),
  };
}
