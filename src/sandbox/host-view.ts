import { existsSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Workspace } from "../workspace/workspace.js";
import { entryExists } from "../workspace/stat.js";
import { commandEnv } from "../process/command-env.js";
import { withoutSecrets } from "../process/secret-env.js";
import { ENV_NAME, hideEntries, pinArgs, procHardening, protectArgs } from "./mounts.js";

/*
 * The shell's sandbox: the host's file system as it is, read-only, so the user's tool chains,
 * PATH and home configuration work, with only the workspace (and roots the configuration names)
 * writable. What still holds, as in run_code's sandbox (./sandbox.ts): fresh user, pid, ipc and
 * uts namespaces, no capabilities, no nested namespaces, a new session, a private /tmp and
 * /dev/shm (empty at each command: nothing is left on the host), /proc's machine-wide parts read-only, and no network unless asked for.
 *
 * Hidden: the workspace's files that may hold secrets, the secret folders of the home directory
 * (keys, cloud credentials, registry tokens), tackle's own folders (server tokens, the code cache)
 * and /run, where the sockets of other services live (docker, dbus, agents): a socket file reaches
 * its service from any network namespace. The command's environment is bubblewrap's own, never its
 * arguments: any user on the machine may read a process's arguments (`ps`), only its owner its
 * environment.
 *
 * Never writable, though inside the workspace: git's hooks and config (what git runs later),
 * tackle's configuration. The rest of `.git` stays writable so `git commit` works.
 */

/** Inside the workspace: read-only in the shell's sandbox. */
const PROTECTED = [".git/hooks", ".git/config", ".git/info", ".tackle", "tackle.config.json", "config.json"];

/** In the home folder: hidden from the shell's sandbox (see SENSITIVE_PATTERNS for files inside a workspace). */
const HOME_SECRETS = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".kube",
  ".docker",
  ".config/gcloud",
  ".config/gh",
  ".config/hub",
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".pypirc",
  ".pgpass",
  ".gmail-tokens",
  ".calendar-tokens",
  ".password-store",
];

/** Where and how a shell command runs over the host's file system. */
export interface HostViewOptions {
  /** The workspace root (absolute, real path): writable unless `workspaceReadOnly`. */
  workspace: string;
  /** Show the workspace read-only (a language server: it reads the code, and writes nothing there). */
  workspaceReadOnly?: boolean;
  /** Working directory inside the workspace. */
  cwd: string;
  /** Further folders the command may write (absolute, existing). */
  writable?: readonly string[];
  /** Existing entries inside the workspace bound read-only on top of it (files that are code). */
  readOnly?: readonly string[];
  /** Entries to make unreadable wherever they are (the workspace's secrets, tackle's folders). */
  hidden?: readonly string[];
  /** Entries inside the workspace whose folders may not be moved (tackle's configuration); those of hidden ones never may. */
  pinned?: readonly string[];
  /** Share the host's network. */
  network: boolean;
  /** Size of the private /tmp and /dev/shm, in bytes. */
  tmpBytes: number;
}

/** Variables that only lead to what the sandbox hides (agents, the session bus, /run). */
const UNREACHABLE = /^(SSH_AUTH_SOCK|SSH_AGENT_PID|GPG_AGENT_INFO|DBUS_SESSION_BUS_ADDRESS|XDG_RUNTIME_DIR|DOCKER_HOST)$/;

/**
 * A program's environment in the host view, given to bubblewrap to pass on: the usual one for
 * commands, with /tmp as its temporary folder. Unless `secrets`, tackle's variables that may carry
 * a secret (GITHUB_TOKEN, a password in DATABASE_URL) are withheld, as the home folder's key files
 * are hidden: a command nobody approved could print them for the model. `extra` (the
 * configuration's `shell.env`) is given whole: the person set it for every command.
 */
export function hostEnv(extra: Readonly<Record<string, string>>, secrets: boolean): { env: Record<string, string>; withheld: string[] } {
  const inherited = secrets ? { env: process.env, withheld: [] } : withoutSecrets(process.env);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(commandEnv(extra, inherited.env))) {
    if (value === undefined || !ENV_NAME.test(name) || UNREACHABLE.test(name) || value.includes("\0")) continue;
    env[name] = value;
  }
  env["TMPDIR"] = "/tmp";
  return { env, withheld: inherited.withheld };
}

/** The home folder's secret entries that exist, as real paths. */
function homeSecrets(): string[] {
  const home = os.homedir();
  // Most are missing: asked without an exception each (a dozen of them cost ~0.7 ms of every command).
  return HOME_SECRETS.map((name) => path.join(home, name)).flatMap((p) => {
    try {
      return entryExists(p) ? [realpathSync(p)] : [];
    } catch {
      return [];
    }
  });
}

/**
 * The bubblewrap arguments (after the binary) that run `argv` over a read-only view of the host
 * with the workspace writable; see the comment at the top of this file for what holds.
 */
export function hostViewArgs(argv: readonly string[], o: HostViewOptions, profile: { userns: boolean }): string[] {
  const ws = o.workspace;
  if (!path.isAbsolute(ws)) throw new Error(`The workspace must be an absolute path: ${ws}.`);
  if (!Workspace.isInside(ws, o.cwd)) throw new Error(`The working directory ${o.cwd} is outside the workspace ${ws}.`);
  const args = ["--unshare-all"];
  if (o.network) args.push("--share-net");
  if (profile.userns) args.push("--unshare-user", "--disable-userns");
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL");
  args.push("--ro-bind", "/", "/");
  args.push("--proc", "/proc", ...procHardening(), "--dev", "/dev");
  args.push("--size", String(o.tmpBytes), "--tmpfs", "/tmp");
  args.push("--size", String(o.tmpBytes), "--tmpfs", "/dev/shm");
  if (existsSync("/run")) args.push("--tmpfs", "/run", "--remount-ro", "/run");
  // Name resolution: /etc/resolv.conf is often a symlink into /run.
  if (o.network && existsSync("/etc/resolv.conf")) {
    const real = realpathSync("/etc/resolv.conf");
    if (real.startsWith("/run/")) args.push("--ro-bind", real, real);
  }
  args.push(o.workspaceReadOnly ? "--ro-bind" : "--bind", ws, ws);
  for (const root of o.writable ?? []) {
    if (!path.isAbsolute(root)) throw new Error(`A writable root must be an absolute path: ${root}.`);
    args.push("--bind", root, root);
  }
  if (!o.workspaceReadOnly) args.push(...pinArgs(ws, [...(o.hidden ?? []), ...(o.pinned ?? [])]));
  // Protection and hiding last: they must sit on top of every writable bind that holds them.
  args.push(...protectArgs(ws, PROTECTED));
  for (const p of o.readOnly ?? []) {
    if (!Workspace.isInside(ws, p) || p === ws) throw new Error(`A read-only entry must be inside the workspace: ${p}.`);
    args.push("--ro-bind", p, p);
  }
  args.push(...hideEntries([...homeSecrets(), ...(o.hidden ?? [])]));
  args.push("--chdir", o.cwd, "--", ...argv);
  return args;
}
