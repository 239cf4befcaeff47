import { gitGuardArgs, guardedGitOutput, type Confine } from "../../../process/git-guard.js";
import { readOnlyLaunch } from "../../../sandbox/read-only.js";
import { existsSync } from "node:fs";
import path from "node:path";
import { Workspace } from "../../../workspace/workspace.js";
import { isSensitivePath, SENSITIVE_PATTERNS, sensitivePathspecs } from "../../../workspace/sensitive.js";
import { expandTilde, type SimpleCommand } from "../analysis/command-analysis.js";
import { gitSubcommand } from "../analysis/destructive.js";
import { type ReadOnlyVerdict, type TreeSearch } from "../analysis/read-only.js";
import { hasOption, pathInWord, splitOptions } from "../analysis/flags.js";
import type { Word } from "../analysis/words.js";
import { expandGlob } from "./reads.js";

/*
 * Files that may hold secrets a command names or reads: by name, in a tree it searches, or in
 * what git holds.
 */
/** A file that may hold secrets a command reads, and why it counts as read. */
export interface Secret {
  why: string;
  /** The file, as the command or the workspace names it: a rule releases it only by naming it. */
  file: string;
}

/**
 * The first file that may hold secrets a command names (an operand, an option's value, a
 * redirection), inside the workspace or anywhere else (`~/.ssh/id_rsa`). Names only known when it
 * runs are left to the read-only check, which never auto-approves them.
 */
export async function secretNamed(
  words: readonly Word[],
  cwd: string | undefined,
  workspace: Workspace,
  home: string,
): Promise<Secret | undefined> {
  for (const w of words) {
    if (w.dynamic) continue;
    const given = pathInWord(w.text);
    const text = given === undefined ? "" : expandTilde(given, home, cwd ?? workspace.root);
    if (!text || text.startsWith("-") || text.startsWith("~")) continue;
    if (w.glob) {
      // `cat .e*` names .env as surely as `cat .env` does, once bash has expanded it.
      const matches = (await expandGlob(text, cwd ?? workspace.root)) ?? [];
      const names = matches.slice(0, 2000).map((m) => ({ ...w, text: m, glob: false }));
      const why = await secretNamed(names, cwd, workspace, home);
      if (why) return why;
      continue;
    }
    const absolute = path.resolve(cwd ?? workspace.root, text);
    const root = workspace.rootOf(absolute);
    const lexical = root ? path.relative(root, absolute).split(path.sep).join("/") : absolute.slice(1);
    if (isSensitivePath(lexical)) return { why: `${root ? lexical : absolute} may hold secrets`, file: root ? lexical : absolute };
    if (!root) continue;
    try {
      const resolved = await workspace.resolve(absolute);
      if (isSensitivePath(resolved.relative)) return { why: `${lexical} (${resolved.relative}) may hold secrets`, file: resolved.relative };
    } catch {
      // outside through a link: the read-only check says so
    }
  }
  return undefined;
}

/** A secret a command reads without naming it: in a tree it searches, or in what git holds that it prints. */
export async function secretUnnamed(
  cmd: SimpleCommand,
  verdict: ReadOnlyVerdict,
  workspace: Workspace,
  home: string,
  bwrap?: string,
): Promise<Secret | undefined> {
  const confine = confineIn(workspace.root, bwrap);
  const history = cmd.name === "git" ? await secretInGitHistory(cmd, cmd.cwd ?? workspace.root, confine) : undefined;
  return history ?? (verdict.recursive ? secretUnder(verdict.recursive, cmd.cwd, workspace, home, confine) : undefined);
}

/**
 * A recursive search (`grep -r`, `rg`, `git grep`) reads every file below its roots: it is
 * read-only only when no file that may hold secrets lies there (hidden ones count only when it
 * reads hidden files; for `git grep`, only those it reads: tracked, or not hidden by .gitignore).
 */
async function secretUnder(
  search: TreeSearch,
  cwd: string | undefined,
  workspace: Workspace,
  home: string,
  confine: Confine,
): Promise<Secret | undefined> {
  const here = cwd ?? workspace.root;
  const dirs = search.roots.length ? search.roots.map((r) => path.resolve(here, expandTilde(r.text, home))) : [here];
  // A root that is not there may be an option's value read as a folder (an option this judgement
  // does not know): then the search may well be of the working directory, which is checked too.
  if (search.roots.length && dirs.some((d) => !existsSync(d))) dirs.push(here);
  for (const dir of dirs) {
    const { glob } = await import("tinyglobby");
    const found = await glob(SENSITIVE_PATTERNS as string[], {
      cwd: dir,
      dot: search.dot,
      deep: 8,
      onlyFiles: false,
      absolute: true,
      ignore: ["**/node_modules/**", "**/.git/**"],
    }).catch(() => [] as string[]);
    const secrets = found.filter((f) => {
      const root = workspace.rootOf(f);
      return root !== undefined && isSensitivePath(path.relative(root, f).split(path.sep).join("/"));
    });
    const read = search.git && secrets.length ? await gitReads(here, secrets, search.git, confine) : secrets;
    if (read.length) {
      const file = workspace.relative(read[0]!);
      return { why: `it searches ${workspace.relative(dir)} recursively, which holds ${file} (may hold secrets)`, file };
    }
  }
  return undefined;
}

/**
 * Whether a git command prints the content of files git holds: diffs and blobs, which show what
 * was ever committed (a .env committed once and deleted since is still in `git log -p`).
 */
function printsGitContent(sub: string | undefined, options: string[], operands: readonly Word[]): boolean {
  const has = (short: string, long: string[] = []) => hasOption(options, short, long);
  const summaryOnly = ["no-patch", "stat", "shortstat", "numstat", "name-only", "name-status", "summary", "dirstat", "raw", "quiet"];
  switch (sub) {
    case "show":
      return has("pu", ["patch", "unified"]) || !has("s", summaryOnly);
    case "diff":
      return has("pu", ["patch", "unified"]) || !has("", summaryOnly);
    case "log":
    case "whatchanged":
    case "diff-tree":
    case "diff-index":
    case "diff-files":
      return has("puUcL", ["patch", "unified", "cc", "combined-all-paths"]);
    case "stash":
      return operands[0]?.text === "show" && has("pu", ["patch"]);
    case "format-patch":
    case "archive":
    case "fast-export":
    case "bundle":
      return true;
    case "cat-file":
      return !options.every((o) => /^-[tse]+$|^--(allow-unknown-type|use-mailmap|no-mailmap)$/.test(o)) || operands.length > 1;
    default:
      return false;
  }
}

const GIT_SENSITIVE = sensitivePathspecs();

/**
 * The read-only sandbox for git the judgement runs in the workspace `root` (under the configured
 * bubblewrap, `sandbox.bwrap`, as commands run): nothing tackle runs to decide may act on what a
 * repository's config names. A cwd outside the workspace (`cd /elsewhere && git log`) holds
 * nothing a tool could have written, and runs as it is.
 */
function confineIn(root: string, bwrap: string | undefined): Confine {
  return (argv, cwd) =>
    Workspace.isInside(root, cwd)
      ? readOnlyLaunch(argv, { root, cwd, timeoutMs: 10_000, env: { LC_ALL: "C" }, ...(bwrap === undefined ? {} : { bwrap }) })
      : Promise.resolve(undefined);
}

/**
 * For a git command that prints files' content: a file that may hold secrets among those it can
 * print, from any commit a ref or reflog reaches or from the index, within the pathspecs after
 * `--` when it gives some. Asked of git itself (`git log --all --reflog -- <patterns>`).
 */
async function secretInGitHistory(cmd: SimpleCommand, cwd: string, confine: Confine): Promise<Secret | undefined> {
  const { sub, rest } = gitSubcommand(cmd);
  const { options, operands } = splitOptions(rest);
  if (!printsGitContent(sub, options, operands)) return undefined;
  const guard = gitGuardArgs(cwd);
  const [history, index, prefix] = await Promise.all([
    guardedGitOutput(cwd, ["log", "--all", "--reflog", "--format=", "--name-only", "-z", "--", ...GIT_SENSITIVE], guard, confine),
    guardedGitOutput(cwd, ["ls-files", "-z", "--full-name", "--", ...GIT_SENSITIVE], guard, confine),
    guardedGitOutput(cwd, ["rev-parse", "--show-prefix"], guard, confine),
  ]);
  if (history === undefined || index === undefined || prefix === undefined) return undefined;
  const dash = rest.findIndex((w) => w.text === "--");
  const pathspecs = dash >= 0 ? rest.slice(dash + 1) : [];
  // Only plain pathspecs narrow it: a glob or a magic one is taken to cover everything. Both sides
  // are paths from the top of the repository, as git names them.
  const narrowed = pathspecs.length > 0 && pathspecs.every((p) => !p.dynamic && !p.glob && !p.text.startsWith(":"));
  const specs = pathspecs.map((p) => path.posix.normalize(`${prefix.trim()}${p.text}`).replace(/\/+$/, ""));
  const within = (name: string) => !narrowed || specs.some((spec) => spec === "." || name === spec || name.startsWith(`${spec}/`));
  const names = `${history}\0${index}`.split(/\0|\n/).filter(Boolean);
  const found = names.find((name) => isSensitivePath(name) && within(name));
  return found ? { why: `git ${sub} can print ${found}, which git holds (may hold secrets)`, file: found } : undefined;
}

/** Which of `files` git grep reads: those git tracks, or also untracked ones .gitignore does not hide. All when git cannot say. */
async function gitReads(cwd: string, files: string[], which: "tracked" | "visible", confine: Confine): Promise<string[]> {
  const args = ["ls-files", "-z", "--cached", ...(which === "visible" ? ["--others", "--exclude-standard"] : []), "--", ...files];
  const out = await guardedGitOutput(cwd, args, undefined, confine);
  if (out === undefined) return files;
  // Names come back relative to cwd, as the files were found.
  const listed = new Set(
    out
      .split("\0")
      .filter(Boolean)
      .map((name) => path.resolve(cwd, name)),
  );
  return files.filter((f) => listed.has(f));
}
