import type { ToolContext } from "../../core/tool.js";
import { NON_INTERACTIVE_ENV } from "../../process/command-env.js";
import { buildSandboxArgs, sandboxAvailable, sandboxUnavailableError } from "../../sandbox/sandbox.js";
import { sandboxSettingsFrom } from "../../sandbox/config.js";
import type { Launcher } from "./shell.js";
import { MAX_SENSITIVE_ENTRIES, sensitiveEntries } from "../../workspace/sensitive-entries.js";
import { tackleFolders } from "../../workspace/own-folders.js";
import { Workspace } from "../../workspace/workspace.js";

/**
 * Runs shell commands inside run_code's bubblewrap sandbox (config `shell.sandbox: true`), with
 * the `sandbox` section's network and limits. Where bubblewrap is missing the call fails with
 * how to install it; it never falls back to running unsandboxed.
 */
export function sandboxLauncher(config: Record<string, unknown>): Launcher {
  const settings = sandboxSettingsFrom(config);
  return async (command: string, cwd: string, ctx: ToolContext) => {
    const status = await sandboxAvailable(settings.bwrap ? { bwrap: settings.bwrap } : {});
    if (!status.available) throw sandboxUnavailableError(status, "The sandboxed shell");
    const args = buildSandboxArgs(
      ["/bin/bash", "-c", command],
      {
        workspace: ctx.workspace.root,
        cwd,
        network: settings.network,
        limits: settings.limits,
        readOnly: settings.readOnlyPaths,
        env: { ...NON_INTERACTIVE_ENV },
      },
      { userns: status.userns },
    );
    return { file: status.bwrap, args };
  };
}

/** The workspace's files that may hold secrets, to hide; all of them or, past the limit, none (the judgement still holds). */
async function hiddenSecrets(root: string): Promise<string[]> {
  const entries = await sensitiveEntries(root);
  const own = tackleFolders().filter((dir) => dir !== root && Workspace.isInside(root, dir));
  return entries.length > MAX_SENSITIVE_ENTRIES ? own : [...entries, ...own];
}

/** Variables a read-only command may want from tackle's environment (language, time zone, terminal). */
const PASSED_THROUGH = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|TERM|COLUMNS|LINES|NO_COLOR)$/;

/**
 * Defence in depth for commands judged read-only: they run where they cannot write (the whole file
 * system, the workspace included, read-only; a private /tmp) nor reach the network, so a misjudged
 * command fails instead of acting. Where bubblewrap cannot run, undefined: the command runs as
 * before, and the result says it was not confined.
 */
export async function readOnlyLaunch(command: string, cwd: string, ctx: ToolContext, timeoutMs: number) {
  const status = await sandboxAvailable();
  if (!status.available) return undefined;
  const env: Record<string, string> = { ...NON_INTERACTIVE_ENV };
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && PASSED_THROUGH.test(name)) env[name] = value;
  const args = buildSandboxArgs(
    ["/bin/bash", "-c", command],
    {
      workspace: ctx.workspace.root,
      workspaceReadOnly: true,
      // As for run_code: what a misjudged command reads, it cannot print.
      hidden: await hiddenSecrets(ctx.workspace.root),
      cwd,
      network: false,
      // The shell's own time limit governs; the CPU limit only stops a runaway past it.
      limits: { cpuSeconds: Math.ceil(timeoutMs / 1000) + 5 },
      readOnly: ctx.workspace.extraRoots.map((r) => r.path),
      env,
    },
    { userns: status.userns },
  );
  return { file: status.bwrap, args };
}
