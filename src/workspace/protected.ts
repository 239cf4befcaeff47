import { opendir, lstat } from "node:fs/promises";
import path from "node:path";
import { lazyGlob } from "./lazy-glob.js";

/**
 * Files no tool may write: an agent that could edit these could grant itself permissions, or make
 * git run a program it wrote on the next git command. Git's hooks and config count at any depth:
 * a nested repository runs its own.
 */
const PROTECTED = [
  // In any folder: tackle started there takes the nearest one for its configuration.
  "**/tackle.config.json",
  "config.json",
  "**/.tackle/**",
  "**/.git/hooks/**",
  "**/.git/hooks",
  "**/.git/config",
  "**/.git/config.worktree",
];

/**
 * Files that make programs run when git, a package manager or a shell meets them, through
 * commands a rule may allow (`git status`, `npm run test:*`): git's internals at any depth (a
 * `.git` file's `gitdir:`, `commondir`), attribute filters and submodules, package manifests and
 * their configuration, `node_modules/.bin`, Makefiles, shell start-up files. Writing, creating, moving, copying or deleting them
 * needs a person's approval even where writes are otherwise approved automatically.
 */
const EXECUTION_SENSITIVE = [
  "**/.git",
  "**/.git/**",
  "**/*.git/hooks/**",
  "**/*.git/config",
  "**/.gitattributes",
  "**/.gitmodules",
  "**/.gitconfig",
  "**/.lfsconfig",
  "**/package.json",
  "**/.npmrc",
  "**/.yarnrc",
  "**/.yarnrc.yml",
  "**/.pnpmfile.cjs",
  "**/pnpm-workspace.yaml",
  "**/.yarn/plugins/**",
  "**/.husky/**",
  "**/node_modules/.bin",
  "**/node_modules/.bin/**",
  "**/node_modules/.hooks/**",
  "**/Makefile",
  "**/makefile",
  "**/GNUmakefile",
  "**/*.mk",
  "**/justfile",
  "**/.justfile",
  "**/.envrc",
  "**/.bashrc",
  "**/.bash_profile",
  "**/.bash_login",
  "**/.bash_logout",
  "**/.profile",
  "**/.zshrc",
  "**/.zshenv",
  "**/.zprofile",
  "**/.inputrc",
];

const isProtected = lazyGlob(PROTECTED, { dot: true, nocase: true });
const isExecutionSensitive = lazyGlob(EXECUTION_SENSITIVE, { dot: true, nocase: true });

/** Entries a folder's scan looks at before it stops and counts the folder as sensitive (fail closed). */
const MAX_SCAN_ENTRIES = 20_000;

/** Whether no tool may write `relative` (workspace-relative, "/"-separated). */
export function isProtectedPath(relative: string): boolean {
  return isProtected(relative);
}

/**
 * Why writing `relative` (workspace-relative) could make a program run, or undefined. Also true of
 * the folders that hold such files: `sub` when `sub/.git/HEAD` is meant.
 */
export function executionSensitiveReason(relative: string): string | undefined {
  if (!isExecutionSensitive(relative)) return undefined;
  const base = path.posix.basename(relative);
  if (/(^|\/)[^/]*\.git(\/|$)/i.test(relative))
    return `${relative} is part of a git repository's own files, which can make git run programs`;
  if (/package\.json$|npmrc$|yarnrc|pnpm|\.yarn\/|\.husky\//i.test(relative))
    return `${relative} decides what package-manager commands run (${base})`;
  if (/^\.git(attributes|modules|config)$|^\.lfsconfig$/i.test(base)) return `${relative} can make git run programs (filters, submodules)`;
  if (/(^|\/)node_modules\/\.(bin|hooks)(\/|$)/i.test(relative)) return `${relative} is a program that package scripts and tools run`;
  if (/^(gnu)?makefile$|\.mk$|^\.?justfile$/i.test(base)) return `${relative} decides what make (or just) runs`;
  return `${relative} is read by shells, which run what it says`;
}

/**
 * The name that makes `relative` execution-sensitive (`.git`, `repo.git`, `.husky`, `package.json`):
 * a rule lifts the question only when its pattern names it: `write_file(**)` does not, and
 * `write_file(app/package.json)` does.
 */
export function executionSensitiveName(relative: string): string {
  const inRepo = /(?:^|\/)([^/]*\.git)(?:\/|$)/i.exec(relative) ?? /(?:^|\/)(\.husky|\.yarn|\.bin|\.hooks)(?:\/|$)/i.exec(relative);
  return inRepo ? inRepo[1]! : path.posix.basename(relative);
}

/**
 * The first file or folder inside `absolute` (a folder about to be moved, copied or deleted) whose
 * path, once `absolute` is at `relativeAs`, would be execution-sensitive; undefined when there is
 * none. A folder too large to scan counts as sensitive, so a move is never waved through unseen.
 */
export async function executionSensitiveWithin(absolute: string, relativeAs: string): Promise<string | undefined> {
  const direct = executionSensitiveReason(relativeAs);
  if (direct) return direct;
  let info;
  try {
    info = await lstat(absolute);
  } catch {
    return undefined;
  }
  if (!info.isDirectory()) return undefined;
  let seen = 0;
  const pending: Array<[string, string]> = [[absolute, relativeAs]];
  while (pending.length) {
    const [dir, rel] = pending.pop()!;
    let handle;
    try {
      handle = await opendir(dir);
    } catch {
      continue;
    }
    for await (const entry of handle) {
      if (++seen > MAX_SCAN_ENTRIES)
        return `${relativeAs} holds more than ${MAX_SCAN_ENTRIES} entries, too many to check for git or package files`;
      const childRel = rel === "." || rel === "" ? entry.name : `${rel}/${entry.name}`;
      const reason = executionSensitiveReason(childRel);
      if (reason) return reason;
      if (entry.isDirectory()) pending.push([path.join(dir, entry.name), childRel]);
    }
  }
  return undefined;
}
