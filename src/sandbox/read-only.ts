import { NON_INTERACTIVE_ENV } from "../process/command-env.js";
import { MAX_SENSITIVE_ENTRIES, sensitiveEntries } from "../workspace/sensitive-entries.js";
import { tackleFolders } from "../workspace/own-folders.js";
import { Workspace } from "../workspace/workspace.js";
import { buildSandboxArgs, sandboxAvailable } from "./sandbox.js";
import { DEFAULT_SANDBOX_LIMITS } from "./config.js";
import { hostEnv, hostViewArgs } from "./host-view.js";

/** Variables a read-only command may want from tackle's environment (language, time zone, terminal). */
const PASSED_THROUGH = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|TERM|COLUMNS|LINES|NO_COLOR)$/;

/** The workspace's files that may hold secrets, to hide; all of them or, past the limit, none (the judgement still holds). */
export async function workspaceSecrets(root: string): Promise<string[]> {
  return secretsToHide(await sensitiveEntries(root));
}

/** Of the secrets a search found, those to hide: all of them or, past the limit, none. */
export function secretsToHide(entries: string[]): string[] {
  return entries.length > MAX_SENSITIVE_ENTRIES ? [] : entries;
}

/** tackle's own folders inside the workspace, hidden like secrets. */
export function ownFoldersInside(root: string): string[] {
  return tackleFolders().filter((dir) => dir !== root && Workspace.isInside(root, dir));
}

export interface ReadOnlyOptions {
  /** The workspace root: mounted read-only, its secrets and tackle's folders in it hidden. */
  root: string;
  /** The bubblewrap binary (the configuration's `sandbox.bwrap`); default `bwrap` on PATH. */
  bwrap?: string;
  /** Where the program starts, inside the root. */
  cwd: string;
  /** Time the program has; the CPU limit only stops a runaway past it. */
  timeoutMs?: number;
  /** Further host paths shown read-only (the workspace's extra roots). */
  readOnly?: readonly string[];
  /** Variables besides the minimal environment and the language and terminal ones. */
  env?: Readonly<Record<string, string>>;
}

/**
 * How to run `argv` where it can neither write (the whole file system, the workspace included,
 * read-only; a private /tmp) nor reach the network, nor read the workspace's secrets: what a
 * misjudged command, or a program a repository's config names, can do there is print what it may
 * see. Undefined where bubblewrap cannot run.
 */
export async function readOnlyLaunch(argv: readonly string[], o: ReadOnlyOptions): Promise<{ file: string; args: string[] } | undefined> {
  const status = await sandboxAvailable(o.bwrap === undefined ? {} : { bwrap: o.bwrap });
  if (!status.available) return undefined;
  const env: Record<string, string> = { ...NON_INTERACTIVE_ENV, ...o.env };
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && PASSED_THROUGH.test(name)) env[name] = value;
  const args = buildSandboxArgs(
    argv,
    {
      workspace: o.root,
      workspaceReadOnly: true,
      hidden: [...(await workspaceSecrets(o.root)), ...ownFoldersInside(o.root)],
      cwd: o.cwd,
      network: false,
      limits: { cpuSeconds: Math.ceil((o.timeoutMs ?? 30_000) / 1000) + 5 },
      readOnly: o.readOnly ?? [],
      env,
    },
    { userns: status.userns },
  );
  return { file: status.bwrap, args };
}

/**
 * How to run a long-lived program over the host as it is, read-only (a language server: the user's
 * tool chains and home configuration work): the workspace read-only, its secrets, the home folder's
 * and tackle's own folders hidden, tackle's secret variables withheld, no network, a private /tmp. What it loads of the workspace's (the
 * TypeScript a project pins, a plugin, a package a tool wrote into node_modules) can read the code
 * and answer, but not change a file, reach out, or read a secret. Undefined where bubblewrap cannot run.
 */
export async function hostReadOnlyLaunch(
  argv: readonly string[],
  o: { root: string; bwrap?: string | undefined; env?: Readonly<Record<string, string>> | undefined },
): Promise<{ file: string; args: string[]; env: Record<string, string> } | undefined> {
  const status = await sandboxAvailable(o.bwrap === undefined ? {} : { bwrap: o.bwrap });
  if (!status.available) return undefined;
  const args = hostViewArgs(
    argv,
    {
      workspace: o.root,
      workspaceReadOnly: true,
      cwd: o.root,
      network: false,
      hidden: [...(await workspaceSecrets(o.root)), ...tackleFolders()],
      tmpBytes: DEFAULT_SANDBOX_LIMITS.tmpBytes,
    },
    { userns: status.userns },
  );
  return { file: status.bwrap, args, env: hostEnv(o.env ?? {}, false).env };
}
