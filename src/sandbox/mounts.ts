import { existsSync, lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import { Workspace } from "../workspace/workspace.js";

/*
 * Mount arguments both sandbox layouts share: run_code's (./sandbox.ts, a minimal system) and the
 * shell's (./host-view.ts, the host read-only).
 */

/** What bash and bubblewrap take for a variable's name. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `--clearenv` and one `--setenv` per variable; a bad name or a null byte is an error, never dropped. */
export function envArgs(env: Readonly<Record<string, string>>): string[] {
  const args = ["--clearenv"];
  for (const [name, value] of Object.entries(env)) {
    if (!ENV_NAME.test(name)) throw new Error(`"${name}" is not a valid environment variable name.`);
    if (value.includes("\0")) throw new Error(`The value of ${name} contains a null byte.`);
    args.push("--setenv", name, value);
  }
  return args;
}

/** Workspace entries sandboxed code may read but never change (see src/workspace/protected.ts). */
export const PROTECTED_IN_WORKSPACE = [".git", ".tackle", "tackle.config.json", "config.json"];

/** Read-only binds over the entries of `names` that exist inside the workspace `ws`. */
export function protectArgs(ws: string, names: readonly string[]): string[] {
  return names.flatMap((name) => {
    const p = protectedTarget(ws, name);
    return p ? ["--ro-bind", p, p] : [];
  });
}

/**
 * Parts of /proc that reach the whole machine. The kernel lets a process whose uid is the host's
 * root write sysctls by file mode, capabilities or not, and a sandbox started by root keeps that
 * uid (bubblewrap maps it to itself), so these are bound read-only over the sandbox's own /proc.
 */
const HOST_WIDE_PROC = [
  "/proc/sys",
  "/proc/sysrq-trigger",
  "/proc/irq",
  "/proc/bus",
  "/proc/fs",
  "/proc/acpi",
  "/proc/scsi",
  "/proc/kcore",
];

let procBinds: string[] | undefined;

export function procHardening(): string[] {
  procBinds ??= HOST_WIDE_PROC.filter((p) => existsSync(p)).flatMap((p) => ["--ro-bind", p, p]);
  return procBinds;
}

/** The mounts that hide workspace entries (see {@link hideEntries}). */
export function hideArgs(ws: string, entries: readonly string[]): string[] {
  for (const p of entries) {
    if (!path.isAbsolute(p) || !Workspace.isInside(ws, p) || p === ws) throw new Error(`A hidden path must be inside the workspace: ${p}.`);
  }
  return hideEntries(entries);
}

/**
 * The mounts that hide each of `entries` (absolute), once each, outer ones first, leaving out those
 * inside a folder already hidden: bubblewrap cannot make a mount point in a hidden folder's empty
 * read-only tmpfs, and the whole command would fail (a workspace holding the home folder has
 * `~/.config/gh` hidden as a home secret and `~/.config/gh/hosts.yml` as a workspace one).
 */
export function hideEntries(entries: readonly string[]): string[] {
  const args: string[] = [];
  const folders: string[] = [];
  for (const p of [...new Set(entries)].sort((a, b) => a.length - b.length)) {
    if (folders.some((folder) => p.startsWith(`${folder}/`))) continue;
    const hidden = hideEntry(p);
    if (hidden[0] === "--tmpfs") folders.push(p);
    args.push(...hidden);
  }
  return args;
}

/**
 * Binds onto itself each folder below `ws` that holds one of `entries` (absolute; those outside
 * `ws` hold none of its folders), outer folders first. A mount point cannot be renamed (EBUSY), so a command cannot swap such a folder for
 * another. Without this, a command could swap the folder holding a secret for an empty stand-in
 * while the sandbox of a command beside it is being made: that sandbox's hiding would land on the
 * stand-in (bubblewrap makes a missing mount point) and the secret would sit beside it, unhidden;
 * and a folder holding tackle's configuration could be renamed for it to govern another.
 */
export function pinArgs(ws: string, entries: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const entry of entries) {
    for (let dir = path.dirname(entry); dir !== ws && Workspace.isInside(ws, dir); dir = path.dirname(dir)) folders.add(dir);
  }
  return [...folders]
    .sort((a, b) => a.length - b.length)
    .flatMap((dir) => (lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() ? ["--bind", dir, dir] : []));
}

/** The mounts that make `p` (absolute) unreadable: an empty read-only folder, or a file nothing can open. */
function hideEntry(p: string): string[] {
  let st;
  try {
    st = lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return [];
  }
  if (!st || st.isSymbolicLink()) return [];
  return st.isDirectory() ? ["--tmpfs", p, "--remount-ro", p] : ["--ro-bind", "/dev/null", p];
}

/**
 * Where a protected workspace entry really is, if it exists inside the workspace. A symlink is
 * followed (a `.git` linking to `.git-real` protects `.git-real`); one leading outside is left
 * alone, because binding it would show its target inside the sandbox, and it dangles there.
 */
function protectedTarget(ws: string, name: string): string | undefined {
  const p = path.join(ws, name);
  try {
    // Most are missing (no .git, no .tackle): asked without an exception each, ~15 µs apiece.
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) return undefined;
    if (!st.isSymbolicLink()) return p;
    const real = realpathSync(p);
    return Workspace.isInside(ws, real) && real !== ws ? real : undefined;
  } catch {
    return undefined;
  }
}
