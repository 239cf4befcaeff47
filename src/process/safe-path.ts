import path from "node:path";

/**
 * An empty or relative PATH entry (`PATH=.:/usr/bin`, or a trailing `:`) names a folder relative to
 * wherever a program starts, and tackle starts git, ripgrep, bubblewrap, MCP and language servers,
 * hooks and commands in the workspace: a `git` a tool wrote there would run in place of the
 * system's, on the host, at the next git tool call. So tackle's process keeps only absolute
 * entries, once, before it starts anything; what the person's own shell does is theirs.
 *
 * Returns the entries it dropped (none when PATH holds only absolute folders).
 */
export function dropRelativePathEntries(env: NodeJS.ProcessEnv = process.env): string[] {
  const value = env["PATH"];
  if (value === undefined) return [];
  const entries = value.split(path.delimiter);
  const kept = entries.filter((entry) => path.isAbsolute(entry));
  if (kept.length === entries.length) return [];
  env["PATH"] = kept.join(path.delimiter);
  return entries.filter((entry) => !path.isAbsolute(entry)).map((entry) => entry || "(empty)");
}
