import os from "node:os";
import path from "node:path";
import { existsSync, lstatSync, mkdirSync, realpathSync } from "node:fs";
import type { ToolContext } from "../../core/tool.js";
import { commandEnv, NON_INTERACTIVE_ENV } from "../../process/command-env.js";
import { buildSandboxArgs, sandboxAvailable, sandboxUnavailableError } from "../../sandbox/sandbox.js";
import { hostEnv, hostViewArgs } from "../../sandbox/host-view.js";
import { sandboxSettingsFrom, type SandboxSettings } from "../../sandbox/config.js";
import { readOnlyLaunch, secretsToHide, workspaceSecrets } from "../../sandbox/read-only.js";
import { workspaceScan } from "../../workspace/sensitive-entries.js";
import { tackleFolders } from "../../workspace/own-folders.js";
import { Workspace } from "../../workspace/workspace.js";
import { judgeOnce } from "./command-judgement.js";
import type { ShellSettings } from "./settings.js";
import { codeEntries, configEntries, configHeld, ownFoldersHeld, watchNewFiles } from "./new-file-guard.js";
import { workspaceFoldersOnPath } from "../../workspace/path-folders.js";
import { configuredCodeFiles } from "../../config/code-files.js";
import { DOTENV_FILE, type TackleConfig } from "../../config/config.js";

function isFolder(p: string): boolean {
  try {
    return lstatSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/** How a command was confined: run_code's sandbox, read-only, the workspace sandbox, or not at all. */
export type Confinement = "strict" | "read-only" | "workspace" | "none";

/** What starts a command: a program and its arguments (bubblewrap's, around bash), or plain bash. */
export interface Launch {
  /** bubblewrap and its arguments, with the environment its process gets to pass on, if not the empty one. */
  argv?: { file: string; args: string[]; env?: Record<string, string> };
  confinement: Confinement;
  /** The workspace sandbox shares the host's network for this command. */
  network?: boolean;
  /** Why a sandbox the configuration asks for was not used (bubblewrap cannot run here). */
  unconfinedBecause?: string;
  /** tackle's variables that may carry secrets, withheld from a command only the mode approved. */
  withheld?: string[];
  /** Run once the command has ended: what the model should know about what it left (see ./new-file-guard.ts). */
  afterRun?: () => Promise<string | undefined>;
}

/**
 * The environment to spawn a launch with: bubblewrap passes on the one it was given (or sets the
 * command's own from none, --clearenv and --setenv); a command on the host gets tackle's, with `extra`.
 */
export function launchEnv(launch: Launch, extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  return launch.argv ? (launch.argv.env ?? {}) : commandEnv(extra);
}

/** Everything a launch needs from the tool's configuration, worked out once per tool set. */
export interface LaunchSettings {
  shell: ShellSettings;
  sandbox: SandboxSettings;
  /** The workspace files the configuration runs (MCP servers' scripts, custom tools' programs) and its folders on PATH, absolute. */
  codeFiles: (root: string) => string[];
}

export function launchSettings(shell: ShellSettings, config: Record<string, unknown>): LaunchSettings {
  return {
    shell,
    sandbox: sandboxSettingsFrom(config),
    // The workspace's folders on PATH too (not the workspace itself, which commands must write).
    codeFiles: (root) =>
      [...configuredCodeFiles(config as TackleConfig, root), ...workspaceFoldersOnPath(root).filter((dir) => dir !== "")].map((relative) =>
        path.join(root, relative),
      ),
  };
}

/**
 * Starts finding out whether bubblewrap can run (once per process) while the command is still being
 * parsed and judged: both take tens of milliseconds on a first call, one mostly waiting on child
 * processes and the other on the CPU, so side by side they cost little more than one.
 */
export function warmLaunch(s: LaunchSettings): void {
  if (s.shell.sandbox.mode === "off" && !s.shell.confineReadOnly) return;
  sandboxFor(s).catch(() => undefined);
}

/** Whether bubblewrap (the configured one) can run here; probed once per process. */
function sandboxFor(s: LaunchSettings): ReturnType<typeof sandboxAvailable> {
  return sandboxAvailable(s.sandbox.bwrap ? { bwrap: s.sandbox.bwrap } : {});
}

/**
 * Chooses how `command` runs, in this order: outside any sandbox when the person approved
 * `unconfined`; in run_code's sandbox under `shell.sandbox: "strict"` (never unsandboxed: without
 * bubblewrap the call fails); read-only with no network when the command is judged to only read;
 * in the workspace sandbox by default; on the host when `shell.sandbox` is off or bubblewrap cannot run.
 */
export async function launchFor(
  command: string,
  relativeCwd: string | undefined,
  cwd: string,
  ctx: ToolContext,
  s: LaunchSettings,
  options: { timeoutMs?: number; unconfined?: boolean },
): Promise<Launch> {
  const mode = s.shell.sandbox.mode;
  if (options.unconfined || (mode === "off" && !s.shell.confineReadOnly)) return { confinement: "none" };
  const status = await sandboxFor(s);
  if (mode === "strict") {
    if (!status.available) throw sandboxUnavailableError(status, "The sandboxed shell");
    const root = ctx.workspace.root;
    // The workspace's secrets (less one a rule released for this command) and tackle's own folders
    // it holds, the build's code cache among them, are hidden here as in the workspace sandbox; an
    // own folder a command took away with a folder above it and replaced is moved aside.
    const own = ownFoldersHeld([root], false);
    const j = await judgeOnce(command, relativeCwd, ctx, s.sandbox.bwrap);
    const secrets = released(await workspaceSecrets(root), "cwdError" in j || !ctx.approvedBy ? undefined : j.secretFile, root);
    const args = buildSandboxArgs(
      ["/bin/bash", "-c", command],
      {
        workspace: root,
        cwd,
        network: s.sandbox.network,
        limits: s.sandbox.limits,
        readOnly: s.sandbox.readOnlyPaths,
        hidden: [...secrets, ...own],
        env: { ...NON_INTERACTIVE_ENV },
      },
      { userns: status.userns },
    );
    const afterRun = watchNewFiles(root, { config: [], own });
    return { argv: { file: status.bwrap, args }, confinement: "strict", afterRun };
  }
  if (!status.available) return { confinement: "none", ...(mode === "off" ? {} : { unconfinedBecause: status.reason }) };
  const j = await judgeOnce(command, relativeCwd, ctx, s.sandbox.bwrap);
  if (s.shell.confineReadOnly) {
    if (!("cwdError" in j) && j.readOnly) {
      const argv = await readOnlyLaunch(["/bin/bash", "-c", command], {
        root: ctx.workspace.root,
        ...(s.sandbox.bwrap ? { bwrap: s.sandbox.bwrap } : {}),
        cwd,
        timeoutMs: options.timeoutMs ?? 120_000,
        // A root not made yet (the runner's folder for cut outputs) has nothing to show.
        readOnly: ctx.workspace.extraRoots.map((r) => r.path).filter((p) => existsSync(p)),
      });
      if (argv) return { argv, confinement: "read-only" };
    }
  }
  if (mode === "off") return { confinement: "none" };
  const root = ctx.workspace.root;
  // git makes .git/hooks at init; where it is missing, a command could make it, out of the read-only bind's reach.
  const git = path.join(root, ".git");
  if (isFolder(git) && !existsSync(path.join(git, "hooks"))) mkdirSync(path.join(git, "hooks"));
  // What a person or a rule approved may use the network, tackle's secret variables and change files
  // that are code; what only the mode approved may none of these (unless the configuration gives
  // every command the network).
  const approved = ctx.approvedBy === "user" || ctx.approvedBy === "config";
  const network = s.shell.sandbox.network || approved;
  const scan = await workspaceScan(root);
  const code = approved ? undefined : codeEntries(root, cwd, s.codeFiles(root), scan.code);
  const writable = writableRoots(s.shell.sandbox.writableRoots, root);
  const own = ownFoldersHeld([root, ...writable], approved);
  // tackle's configuration in every folder, not only along the way: tackle started in any of them takes it.
  // A person's approval lets a command write a .env (`cp .env.example .env`), not tackle's own files.
  const guarded = (p: string) => !approved || path.basename(p) !== DOTENV_FILE;
  const config = [...new Set([...configEntries(root, cwd), ...scan.config])].filter(guarded);
  const rescan = async () => {
    const again = await workspaceScan(root);
    return { ...again, config: again.config.filter(guarded) };
  };
  const afterRun = watchNewFiles(root, { config, code, own, rescan });
  const { env, withheld } = hostEnv(s.shell.env, approved);
  const held = configHeld(root, config);
  const args = hostViewArgs(
    ["/bin/bash", "-c", command],
    {
      workspace: root,
      cwd,
      writable,
      // A link that leads nowhere has nothing to bind (bubblewrap would refuse the whole command).
      readOnly: [...(code?.existing.keys() ?? []), ...held].filter((p) => Workspace.isInside(root, p) && p !== root && existsSync(p)),
      pinned: held,
      hidden: [
        ...released(secretsToHide(scan.sensitive), "cwdError" in j || !ctx.approvedBy ? undefined : j.secretFile, root),
        ...tackleFolders(),
      ],
      network,
      tmpBytes: s.sandbox.limits.tmpBytes,
    },
    { userns: status.userns },
  );
  return {
    argv: { file: status.bwrap, args, env },
    confinement: "workspace",
    network,
    ...(withheld.length ? { withheld } : {}),
    afterRun,
  };
}

/**
 * The secrets to hide, less the one this command names when a runner approved the call: it got
 * past the policy, so a rule naming that file released it (see policy.ts). A folder holding it is
 * shown with it. Called outside a runner, nothing is released.
 */
function released(secrets: readonly string[], file: string | undefined, root: string): string[] {
  if (file === undefined) return [...secrets];
  const absolute = path.resolve(root, file);
  return secrets.filter((p) => p !== absolute && !Workspace.isInside(p, absolute));
}

/**
 * `shell.sandbox.writableRoots` as real, existing folders: `~/` is the home folder, a relative
 * path the workspace's. A folder that does not exist is left out (bubblewrap cannot bind it).
 */
export function writableRoots(roots: readonly string[], workspace: string): string[] {
  return roots.flatMap((root) => {
    const expanded = root === "~" || root.startsWith("~/") ? path.join(os.homedir(), root.slice(1)) : path.resolve(workspace, root);
    try {
      return [realpathSync(expanded)];
    } catch {
      return [];
    }
  });
}
