import { TOOL } from "./names.js";
import { TOOL_LSP } from "./lsp/names.js";

/** A named tool list, one per requirement document, reproduced name for name. */
export type Toolset = "default" | "coding" | "assistant" | "editor" | "workspace";

export const TOOLSETS: Readonly<Record<Exclude<Toolset, "default">, readonly string[]>> = {
  /** spec 001's built-in tools */
  coding: [TOOL.readFile, TOOL.writeFile, "shell", TOOL.glob, TOOL.grep, "edit", TOOL.webSearch, TOOL.webFetch],
  /** spec 000's registry (and 004's): always, or when credentials are present */
  assistant: [
    "bash",
    TOOL.readFile,
    TOOL.writeFile,
    TOOL.appendFile,
    TOOL.linkedinJobs,
    TOOL.linkedinJobDetail,
    TOOL.webFetch,
    TOOL.gmailSearch,
    TOOL.gmailRead,
    TOOL.gmailSend,
    TOOL.calendarListEvents,
    TOOL.calendarCreateEvent,
    TOOL.calendarGetEvent,
    TOOL.anthropicUsage,
    TOOL.webSearch,
  ],
  /** spec 002's categories */
  editor: [
    TOOL.readFile,
    TOOL.writeFile,
    TOOL.editFile,
    "search_files",
    TOOL.deleteFile,
    TOOL.listDirectory,
    TOOL.createDirectory,
    TOOL.copyFile,
    TOOL.gitStatus,
    TOOL.gitDiff,
    TOOL.gitCommit,
    TOOL.gitBranch,
    TOOL.gitLog,
    TOOL.gitPush,
    TOOL_LSP.diagnostics,
    TOOL_LSP.symbols,
    TOOL_LSP.hover,
    TOOL_LSP.definition,
    TOOL_LSP.references,
    "shell_exec",
    TOOL.shellBackground,
  ],
  /** spec 003's core tools */
  workspace: [
    TOOL.listDirectory,
    TOOL.readFile,
    TOOL.writeFile,
    TOOL.deleteFile,
    TOOL.moveFile,
    TOOL.runCode,
    TOOL.webFetch,
    TOOL.webSearch,
  ],
};

export const TOOLSET_NAMES: readonly Toolset[] = ["default", "coding", "assistant", "editor", "workspace"];
