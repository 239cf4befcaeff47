import { isSensitivePath } from "./sensitive.js";
import { opendir, lstat } from "node:fs/promises";
import path from "node:path";
import { lazyGlob } from "./lazy-glob.js";
import { CODE_KINDS } from "./code-kinds.js";

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

const isProtected = lazyGlob(PROTECTED, { dot: true, nocase: true });
// One matcher for every kind answers the common "no" at once; the kind is looked for only after a "yes".
const isExecutionSensitive = lazyGlob(
  CODE_KINDS.flatMap((k) => k.globs),
  { dot: true, nocase: true },
);
const kindMatchers = CODE_KINDS.map((kind) => ({ kind, matches: lazyGlob(kind.globs, { dot: true, nocase: true }) }));

// A glob's fixed path when it has one: `.husky` for the folder's globs, `.vscode/tasks.json`; none
// for a kind of file (`*.mk`).
function literalOf(glob: string): string | undefined {
  const rest = glob.replace(/^(\*\*\/)+/, "").replace(/(\/\*\*)+$/, "");
  return /[*?[\]{}()!+@]/.test(rest) ? undefined : rest;
}

let literals: string[] | undefined;

/** The fixed paths of the kinds of code, longest first, so the most telling one names a path. Worked out when first asked. */
function fixedPaths(): string[] {
  literals ??= [...new Set(CODE_KINDS.flatMap((k) => k.globs.map(literalOf).filter((l) => l !== undefined)))].sort(
    (a, b) => b.length - a.length,
  );
  return literals;
}

/**
 * The fixed paths of the kinds of code the shell's sandbox keeps by name (`Makefile`,
 * `node_modules/.bin`, `.vscode/tasks.json`): all but git's own files, which it protects itself.
 */
export function codeNames(): string[] {
  const gitOwn = new Set(CODE_KINDS.filter((k) => k.gitInternals).flatMap((k) => k.globs.map(literalOf)));
  return fixedPaths().filter((l) => !gitOwn.has(l));
}

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
  const kind = kindMatchers.find((k) => k.matches(relative))!.kind;
  return `${relative} ${kind.why}`;
}

/**
 * The name that makes `relative` execution-sensitive (`.git`, `repo.git`, `.husky`, `package.json`):
 * a rule lifts the question only when its pattern names it: `write_file(**)` does not, and
 * `write_file(app/package.json)` does.
 */
export function executionSensitiveName(relative: string): string {
  const inRepo = /(?:^|\/)([^/]*\.git)(?:\/|$)/i.exec(relative);
  if (inRepo) return inRepo[1]!;
  const lower = relative.toLowerCase();
  const literal = fixedPaths().find((l) => {
    const name = l.toLowerCase();
    return lower === name || lower.endsWith(`/${name}`) || lower.startsWith(`${name}/`) || lower.includes(`/${name}/`);
  });
  return literal ?? path.posix.basename(relative);
}

/**
 * The first file or folder inside `absolute` (a folder about to be moved, copied or deleted) whose
 * path, once `absolute` is at `relativeAs`, would be execution-sensitive; undefined when there is
 * none. A folder too large to scan counts as sensitive, so a move is never waved through unseen.
 */
export function executionSensitiveWithin(absolute: string, relativeAs: string): Promise<string | undefined> {
  return firstWithin(absolute, relativeAs, executionSensitiveReason, "git or package files");
}

/**
 * Why moving or deleting the folder `absolute` (at `relative`) needs a person: the first entry
 * inside it that may hold a secret (see tools/fs/common.ts, carriesSecret); undefined when there is none.
 */
export function secretWithin(absolute: string, relative: string): Promise<string | undefined> {
  return firstWithin(absolute, relative, (rel) => (isSensitivePath(rel) ? `${rel} may hold secrets` : undefined), "secrets");
}

/** The first reason `judge` gives for `relativeAs` or an entry below it, a folder read breadth by breadth. */
async function firstWithin(
  absolute: string,
  relativeAs: string,
  judge: (relative: string) => string | undefined,
  what: string,
): Promise<string | undefined> {
  const direct = judge(relativeAs);
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
      if (++seen > MAX_SCAN_ENTRIES) return `${relativeAs} holds more than ${MAX_SCAN_ENTRIES} entries, too many to check for ${what}`;
      const childRel = rel === "." || rel === "" ? entry.name : `${rel}/${entry.name}`;
      const reason = judge(childRel);
      if (reason) return reason;
      if (entry.isDirectory()) pending.push([path.join(dir, entry.name), childRel]);
    }
  }
  return undefined;
}
