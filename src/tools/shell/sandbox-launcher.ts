import type { ToolContext } from "../../core/tool.js";
import { NON_INTERACTIVE_ENV } from "../../process/command-env.js";
import { buildSandboxArgs, sandboxAvailable, sandboxUnavailableError } from "../../sandbox/sandbox.js";
import { sandboxSettingsFrom } from "../../sandbox/config.js";
import type { Launcher } from "./shell.js";

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
