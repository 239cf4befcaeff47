import type { ToolGroup } from "./group.js";
import { TOOL } from "./names.js";
import { TOOL_LSP } from "./lsp/names.js";

/** A built-in group that loads its code only when asked for, with the tool names it can provide. */
export interface LazyGroup {
  /** Every name the group may register (canonical names, aliases and variants). */
  readonly names: readonly string[];
  load(): Promise<ToolGroup>;
}

/**
 * The built-in groups in listing order, each imported on demand: `tackle call read_file` loads
 * the file tools and not the Google, language-server or shell-grammar code. `builtin-tools.ts` lists
 * the same groups eagerly for the synchronous `createBuiltinTools()`.
 */
export const LAZY_GROUPS: readonly LazyGroup[] = [
  {
    names: [
      TOOL.readFile,
      TOOL.writeFile,
      TOOL.appendFile,
      TOOL.editFile,
      "edit",
      TOOL.deleteFile,
      TOOL.moveFile,
      TOOL.copyFile,
      TOOL.createDirectory,
      TOOL.listDirectory,
    ],
    load: async () => (await import("./fs/index.js")).fileTools,
  },
  { names: [TOOL.glob, "search_files", TOOL.grep], load: async () => (await import("./search/index.js")).searchTools },
  { names: [TOOL.shell, "shell_exec", "bash", TOOL.shellBackground], load: async () => (await import("./shell/index.js")).shellTools },
  { names: [TOOL.runCode], load: async () => (await import("./code/index.js")).codeTools },
  { names: [TOOL.webFetch, TOOL.webSearch], load: async () => (await import("./web/index.js")).webTools },
  { names: [TOOL.linkedinJobs, TOOL.linkedinJobDetail], load: async () => (await import("./linkedin/index.js")).linkedinTools },
  {
    names: [TOOL.gmailSearch, TOOL.gmailRead, TOOL.gmailSend, TOOL.calendarListEvents, TOOL.calendarCreateEvent, TOOL.calendarGetEvent],
    load: async () => (await import("./google/index.js")).googleTools,
  },
  { names: [TOOL.anthropicUsage], load: async () => (await import("./anthropic/index.js")).anthropicTools },
  {
    names: [TOOL.gitStatus, TOOL.gitDiff, TOOL.gitLog, TOOL.gitCommit, TOOL.gitBranch, TOOL.gitPush],
    load: async () => (await import("./git/index.js")).gitTools,
  },
  { names: Object.values(TOOL_LSP), load: async () => (await import("./lsp/index.js")).lspTools },
  // Their names come from configuration: asked for by name, they load with every group.
  { names: [], load: async () => (await import("./custom/index.js")).customTools },
];

/**
 * The groups to load for a session: all of them, or, when only `wanted` tools are needed and
 * every one of them is a built-in name, just the groups that provide those.
 */
export async function loadGroups(wanted?: readonly string[]): Promise<ToolGroup[]> {
  const needed =
    wanted && wanted.length > 0 && wanted.every((name) => LAZY_GROUPS.some((g) => g.names.includes(name)))
      ? LAZY_GROUPS.filter((g) => g.names.some((name) => wanted.includes(name)))
      : LAZY_GROUPS;
  return Promise.all(needed.map((g) => g.load()));
}
