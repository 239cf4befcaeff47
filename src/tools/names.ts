/** Every built-in tool name, in one place (canonical names first, then the specs' other names). */
export const TOOL = {
  readFile: "read_file",
  writeFile: "write_file",
  appendFile: "append_file",
  editFile: "edit_file",
  deleteFile: "delete_file",
  moveFile: "move_file",
  copyFile: "copy_file",
  createDirectory: "create_directory",
  listDirectory: "list_directory",
  glob: "glob",
  grep: "grep",
  shell: "shell",
  shellBackground: "shell_background",
  runCode: "run_code",
  webFetch: "web_fetch",
  webSearch: "web_search",
  linkedinJobs: "linkedin_jobs",
  linkedinJobDetail: "linkedin_job_detail",
  gmailSearch: "gmail_search",
  gmailRead: "gmail_read",
  gmailSend: "gmail_send",
  calendarListEvents: "calendar_list_events",
  calendarCreateEvent: "calendar_create_event",
  calendarGetEvent: "calendar_get_event",
  anthropicUsage: "anthropic_usage",
  gitStatus: "git_status",
  gitDiff: "git_diff",
  gitLog: "git_log",
  gitCommit: "git_commit",
  gitBranch: "git_branch",
  gitPush: "git_push",
} as const;

/** Names the specs use for the same tools: alias → canonical. */
export const ALIASES: Readonly<Record<string, string>> = {
  edit: TOOL.editFile,
  search_files: TOOL.glob,
  shell_exec: TOOL.shell,
};

/**
 * Tools that are variants of another under a spec's name: `bash` is spec 000's shell with its
 * 30-second default. They resolve in every toolset but are listed only where their spec is.
 */
export const VARIANTS: ReadonlySet<string> = new Set(["bash"]);
