import path from "node:path";
import { Workspace } from "../../../workspace/workspace.js";
import { isSensitivePath } from "../../../workspace/sensitive.js";
import { executionSensitiveReason, executionSensitiveWithin, isProtectedPath } from "../../../workspace/protected.js";
import { expandTilde, type SimpleCommand } from "../analysis/command-analysis.js";
import { DEVICE_TARGET, HARMLESS_DEVICES } from "../rules/critical-paths.js";
import { gitSubcommand } from "../analysis/destructive.js";
import { readOnlyVerdict } from "../analysis/read-only.js";
import type { Word } from "../analysis/words.js";
import { pathInWord } from "../analysis/flags.js";
import { MOVERS, WRITERS } from "../rules/file-writers.js";

/*
 * What a command writes: redirections, and the operands of commands that write files; and the
 * files no command may touch unasked (tackle's configuration, git's hooks, files that are code).
 */
/** Where a redirection writes; undefined when it is harmless, else why it needs a person (or is denied). */
export async function checkWrite(
  target: Word | undefined,
  cwd: string | undefined,
  workspace: Workspace,
  home: string,
): Promise<{ deny?: string; ask?: string; outside?: boolean; relative?: string } | undefined> {
  if (!target) return undefined;
  if (target.dynamic) return { ask: `it writes to "${target.raw}", which is only known when it runs`, outside: true };
  const text = expandTilde(target.text, home);
  if (DEVICE_TARGET.test(text)) return { deny: `it writes straight to the device ${text}` };
  if (HARMLESS_DEVICES.test(text)) return undefined;
  if (target.glob || target.brace || text.startsWith("~"))
    return { ask: `it writes to "${target.raw}", which is only known when it runs`, outside: true };
  if (!path.isAbsolute(text) && cwd === undefined)
    return { ask: "it writes to a file in a directory only known when it runs", outside: true };
  const absolute = path.resolve(cwd ?? workspace.root, text);
  try {
    const resolved = await workspace.resolve(absolute, { write: true });
    if (resolved.root !== workspace.root) return { ask: `it writes to ${absolute}, outside the workspace`, outside: true };
    const relative = resolved.relative;
    if (isSensitivePath(relative)) return { ask: `it writes to ${relative}, which may hold secrets`, relative };
    const sensitive = executionSensitiveReason(relative);
    if (sensitive) return { ask: `it writes to ${sensitive}`, relative };
    return { relative };
  } catch (err) {
    // tackle's configuration and git's hooks: writing them would let a command grant itself more.
    if ((err as { code?: string }).code === "PERMISSION_DENIED") return { deny: (err as Error).message };
    return { ask: `it writes to ${absolute}: ${(err as Error).message}`, outside: true };
  }
}

/** The workspace files a command that writes files names as operands (workspace-relative). */
export function operandWrites(cmd: SimpleCommand, workspace: Workspace): string[] {
  const inPlace =
    (cmd.name === "sed" || cmd.name === "perl") && cmd.args.some((a) => /^-[a-zA-Z]*i/.test(a.text) || a.text.startsWith("--in-place"));
  if ((!WRITERS.has(cmd.name) && !inPlace) || cmd.cwd === undefined) return [];
  return cmd.args.flatMap((a) => {
    if (a.dynamic || (a.text.startsWith("-") && !a.text.startsWith("of="))) return [];
    const text = a.text.startsWith("of=") ? a.text.slice(3) : a.text;
    const absolute = path.resolve(cmd.cwd!, text);
    if (workspace.rootOf(absolute) !== workspace.root || absolute === workspace.root) return [];
    return [path.relative(workspace.root, absolute).split(path.sep).join("/")];
  });
}

/**
 * Arguments of a command that name tackle's configuration or git's hooks and config, or files (or
 * folders holding files) that make git, package managers or shells run programs.
 */
export async function touchesProtected(cmd: SimpleCommand, workspace: Workspace): Promise<string | undefined> {
  for (const a of cmd.args) {
    if (a.dynamic || cmd.cwd === undefined) continue;
    const named = pathInWord(a.text);
    if (!named) continue;
    const absolute = path.resolve(cmd.cwd, named);
    if (workspace.rootOf(absolute) !== workspace.root) continue;
    const rel = path.relative(workspace.root, absolute).split(path.sep).join("/");
    if (isProtectedPath(rel)) return `${cmd.text} names ${rel}, which holds tackle's configuration or git's hooks`;
    // A folder moved or copied is judged by what it carries; for other commands, by its name.
    const sensitive = MOVERS.has(cmd.name) ? await executionSensitiveWithin(absolute, rel) : executionSensitiveReason(rel);
    if (sensitive) return `${cmd.text}: ${sensitive}`;
  }
  if (cmd.name === "git") {
    const { globals, sub } = gitSubcommand(cmd);
    if (sub === "config" && readOnlyVerdict(cmd).readOnly === false) return "git config can make git run programs (hooks, pagers, aliases)";
    if (globals.some((g) => g === "-c" || g.startsWith("--config-env") || g.startsWith("--exec-path")))
      return "git -c can make git run programs";
  }
  return undefined;
}
