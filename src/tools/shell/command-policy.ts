import { gitGuardArgs, guardedGitOutput, type Confine } from "../../process/git-guard.js";
import { readOnlyLaunch } from "../../sandbox/read-only.js";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Assessment } from "../../core/tool.js";
import { Workspace } from "../../workspace/workspace.js";
import { isSensitivePath, SENSITIVE_PATTERNS, sensitivePathspecs } from "../../workspace/sensitive.js";
import { executionSensitiveReason, executionSensitiveWithin, isProtectedPath } from "../../workspace/protected.js";
import { analyzeCommand, expandTilde, type CommandAnalysis, type SimpleCommand } from "./analysis/command-analysis.js";
import { DEVICE_TARGET, HARMLESS_DEVICES, dangerousReason } from "./analysis/dangerous.js";
import { destructiveReason, gitSubcommand } from "./analysis/destructive.js";
import { expandBraces, shellQuote } from "./analysis/words.js";
import { readOnlyVerdict, type ReadOnlyVerdict, type TreeSearch } from "./analysis/read-only.js";
import { hasOption, splitOptions } from "./analysis/flags.js";
import { SHELLS, shellScriptArg } from "./analysis/wrappers.js";
import type { Word } from "./analysis/words.js";

// Only commands with glob words need it; loading it (and the matcher it brings) at start-up would cost every session.
const tinyglobby = () => import("tinyglobby");

/** Everything the policy needs to know about one command line. */
export interface CommandJudgement {
  analysis: CommandAnalysis;
  /** What permission rules match: every simple command, normalized (and as written when that differs). */
  subjects: string[];
  /** Always refused (spec 002's dangerous list). */
  deny?: string;
  /** Always asked, whatever allow rules say (destructive verbs, writes outside, eval, parse failures). */
  ask?: string;
  /** Every part only reads, inside the workspace, nothing secret: `safe` mode may run it unasked. */
  readOnly: boolean;
  /** Why it is not read-only. */
  notReadOnly?: string;
  /** A file that may hold secrets it names or reads (`cat .env`), refused unless a rule names that file. */
  secret?: string;
  /** That file, as named: a rule releases the secret only when its pattern names it. */
  secretFile?: string;
  /** Workspace-relative paths it is known to write: redirections, and operands of commands that write files. */
  writes?: string[];
  destructive: boolean;
}

const FLAG_ASKS = ["parse-error", "too-deep", "eval", "source", "dynamic", "sensitive-assignment", "arithmetic"] as const;

/** Most variants of a line a loop's values may make before it is left to a person. */
const MAX_VARIANTS = 32;

const NAME = "[A-Za-z_][A-Za-z0-9_]*";
const SETS_VARIABLES =
  /(?:^|[\s;&|(`])(?:read|mapfile|readarray|getopts|select|let|declare|typeset|local|readonly|export|unset|shift|set|source|eval|printf\s+-v|\.)(?=[\s;&|)]|$)/;
/** A value bash takes as it stands: no expansion, quoting or operator in it. */
const STATIC_VALUE = /^[^\s;&|$`"'()<>\\{}]*$/;

/**
 * The values variables set in the line itself take: `for i in 1 2` and `f=notes.txt`, when they
 * are plain words. A variable set from anything else (`x=$(cat a)`, the environment) is absent.
 */
function lineVariables(command: string): Map<string, string[]> | undefined {
  // Builtins that set variables from input or by name: their values are not in the line.
  if (SETS_VARIABLES.test(command)) return undefined;
  const values = new Map<string, string[]>();
  const add = (name: string, list: string[]) => values.set(name, [...new Set([...(values.get(name) ?? []), ...list])]);
  for (const m of command.matchAll(new RegExp(`\\bfor\\s+(${NAME})\\s+in\\s+([^;\\n]*?)\\s*[;\\n]\\s*do\\b`, "g"))) {
    const words = m[2]!.split(/\s+/).filter(Boolean);
    if (!words.every((w) => STATIC_VALUE.test(w))) return undefined;
    add(m[1]!, words);
  }
  for (const m of command.matchAll(new RegExp(`(?:^|[;&|\\s(])(${NAME})=(\\S*)`, "g"))) {
    const value = m[2]!.replace(/[;&|)]+$/, "");
    if (!STATIC_VALUE.test(value)) return undefined;
    add(m[1]!, [value]);
  }
  return values;
}

/**
 * The line once for each combination of the values its own variables take, each reference
 * replaced by the value: `for i in 1 2; do echo tick $i; done` gives `... echo tick 1 ...` and
 * `... echo tick 2 ...`. Undefined when some variable's value is not in the line, or there
 * would be too many.
 */
function variantsOf(command: string): string[] | undefined {
  const values = lineVariables(command);
  if (!values) return undefined;
  const used = [...command.matchAll(new RegExp(`\\$\\{?(${NAME})`, "g"))].map((m) => m[1]!);
  if (used.length === 0 || !used.every((n) => values.has(n))) return undefined;
  let variants = [command];
  for (const name of new Set(used)) {
    const reference = new RegExp(`\\$(?:\\{${name}\\}|${name}(?![A-Za-z0-9_]))`, "g");
    variants = variants.flatMap((v) => values.get(name)!.map((value) => v.replace(reference, () => value)));
    if (variants.length > MAX_VARIANTS) return undefined;
  }
  return variants;
}

async function checkReadPath(word: Word, cwd: string | undefined, workspace: Workspace, home: string): Promise<string | undefined> {
  if (word.dynamic) return `"${word.raw}" is only known when it runs`;
  if (word.brace) return `"${word.raw}" uses brace expansion`;
  const text = expandTilde(word.text, home, cwd);
  if (text.startsWith("~")) return `"${word.raw}" names another user's home`;
  if (HARMLESS_DEVICES.test(text)) return undefined;
  if (!path.isAbsolute(text) && cwd === undefined) return "the working directory is only known when it runs";
  const base = cwd ?? workspace.root;
  if (word.glob) {
    // Expand the pattern as bash would and judge each file it names.
    const staticPart = text.split(/[*?[]/)[0]!;
    const dir = path.resolve(base, staticPart.includes("/") ? staticPart.slice(0, staticPart.lastIndexOf("/") + 1) : ".");
    if (!workspace.rootOf(dir)) return `"${word.raw}" reads outside the workspace`;
    const matches = await expandGlob(text, base);
    if (!matches) return `"${word.raw}" could not be expanded`;
    for (const m of matches.slice(0, 2000)) {
      const why = await checkResolved(m, workspace);
      if (why) return why;
    }
    return matches.length > 2000 ? `"${word.raw}" names too many files to check` : undefined;
  }
  return checkResolved(path.resolve(base, text), workspace);
}

/** The files a glob names, as bash expands it (`*` skips dot files, `.e*` does not), absolute. */
async function expandGlob(pattern: string, base: string): Promise<string[] | undefined> {
  const { glob } = await tinyglobby();
  return glob([path.relative(base, path.resolve(base, pattern)) || "."], {
    cwd: base,
    dot: false,
    onlyFiles: false,
    expandDirectories: false,
    absolute: true,
  }).catch(() => undefined);
}

async function checkResolved(absolute: string, workspace: Workspace): Promise<string | undefined> {
  const lexical = workspace.rootOf(absolute);
  if (!lexical) return `${absolute} is outside the workspace`;
  if (isSensitivePath(path.relative(lexical, absolute).split(path.sep).join("/")))
    return `${workspace.relative(absolute)} may hold secrets`;
  try {
    const resolved = await workspace.resolve(absolute);
    if (isSensitivePath(resolved.relative)) return `${resolved.relative} may hold secrets`;
  } catch {
    return `${absolute} leads outside the workspace`;
  }
  return undefined;
}

/** A file that may hold secrets a command reads, and why it counts as read. */
interface Secret {
  why: string;
  /** The file, as the command or the workspace names it: a rule releases it only by naming it. */
  file: string;
}

/** A secret a command reads without naming it: in a tree it searches, or in what git holds that it prints. */
async function secretUnnamed(
  cmd: SimpleCommand,
  verdict: ReadOnlyVerdict,
  workspace: Workspace,
  home: string,
): Promise<Secret | undefined> {
  const history = cmd.name === "git" ? await secretInGitHistory(cmd, cmd.cwd ?? workspace.root, workspace.root) : undefined;
  return history ?? (verdict.recursive ? secretUnder(verdict.recursive, cmd.cwd, workspace, home) : undefined);
}

/**
 * A recursive search (`grep -r`, `rg`, `git grep`) reads every file below its roots: it is
 * read-only only when no file that may hold secrets lies there (hidden ones count only when it
 * reads hidden files; for `git grep`, only those it reads: tracked, or not hidden by .gitignore).
 */
async function secretUnder(search: TreeSearch, cwd: string | undefined, workspace: Workspace, home: string): Promise<Secret | undefined> {
  const here = cwd ?? workspace.root;
  const dirs = search.roots.length ? search.roots.map((r) => path.resolve(here, expandTilde(r.text, home))) : [here];
  // A root that is not there may be an option's value read as a folder (an option this judgement
  // does not know): then the search may well be of the working directory, which is checked too.
  if (search.roots.length && dirs.some((d) => !existsSync(d))) dirs.push(here);
  for (const dir of dirs) {
    const { glob } = await tinyglobby();
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
    const read = search.git && secrets.length ? await gitReads(here, workspace.root, secrets, search.git) : secrets;
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
 * The read-only sandbox for git the judgement runs in the workspace `root`: nothing tackle runs to
 * decide may act on what a repository's config names. A cwd outside the workspace (`cd /elsewhere
 * && git log`) holds nothing a tool could have written, and runs as it is.
 */
function confineIn(root: string): Confine {
  return (argv, cwd) =>
    Workspace.isInside(root, cwd)
      ? readOnlyLaunch(argv, { root, cwd, timeoutMs: 10_000, env: { LC_ALL: "C" } })
      : Promise.resolve(undefined);
}

/**
 * For a git command that prints files' content: a file that may hold secrets among those it can
 * print, from any commit a ref or reflog reaches or from the index, within the pathspecs after
 * `--` when it gives some. Asked of git itself (`git log --all --reflog -- <patterns>`).
 */
async function secretInGitHistory(cmd: SimpleCommand, cwd: string, root: string): Promise<Secret | undefined> {
  const { sub, rest } = gitSubcommand(cmd);
  const { options, operands } = splitOptions(rest);
  if (!printsGitContent(sub, options, operands)) return undefined;
  const guard = gitGuardArgs(cwd);
  const [history, index, prefix] = await Promise.all([
    guardedGitOutput(cwd, ["log", "--all", "--reflog", "--format=", "--name-only", "-z", "--", ...GIT_SENSITIVE], guard, confineIn(root)),
    guardedGitOutput(cwd, ["ls-files", "-z", "--full-name", "--", ...GIT_SENSITIVE], guard, confineIn(root)),
    guardedGitOutput(cwd, ["rev-parse", "--show-prefix"], guard, confineIn(root)),
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
async function gitReads(cwd: string, root: string, files: string[], which: "tracked" | "visible"): Promise<string[]> {
  const args = ["ls-files", "-z", "--cached", ...(which === "visible" ? ["--others", "--exclude-standard"] : []), "--", ...files];
  const out = await guardedGitOutput(cwd, args, undefined, confineIn(root));
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

/** Whether a directory is inside the workspace once symlinks are followed (`cd link` may lead out). */
async function insideReally(dir: string, workspace: Workspace): Promise<boolean> {
  if (!workspace.rootOf(dir)) return false;
  try {
    await workspace.resolve(dir);
    return true;
  } catch {
    return false;
  }
}

/** Where a redirection writes; undefined when it is harmless, else why it needs a person (or is denied). */
async function checkWrite(
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

const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun", "npx", "pnpx"]);
/** Options that point a package manager at another package.json: another folder, a workspace member, all of them. */
const ELSEWHERE = /^(?:--prefix|-C|--dir|--cwd|--workspace|--workspaces|-w|-ws|--filter|-F|--recursive|-r|--global|-g)(?:=|$)/;

/**
 * A package manager run against a package.json other than the workspace's own (`npm --prefix sub
 * run test`, `cd sub && npm test`, `yarn workspace x ...`): a rule like `npm run test:*` was written
 * for the scripts the person knows, not for ones an agent may have written elsewhere.
 */
function packageScriptsElsewhere(cmd: SimpleCommand, workspace: Workspace): string | undefined {
  if (!PACKAGE_MANAGERS.has(cmd.name)) return undefined;
  const option = cmd.args.find((a) => ELSEWHERE.test(a.text));
  if (option) return `${cmd.name} ${option.text} runs scripts from another package.json than the workspace's`;
  if (cmd.name === "yarn" && cmd.args[0]?.text === "workspace") return "yarn workspace runs scripts from another package.json";
  if (cmd.cwd !== undefined && path.resolve(cmd.cwd) !== workspace.root) {
    return `${cmd.name} runs in ${path.relative(workspace.root, cmd.cwd) || cmd.cwd}, with that folder's package.json, not the workspace's`;
  }
  return undefined;
}

/** Commands that move or copy files and folders into place. */
const MOVERS = new Set(["mv", "cp", "rsync", "ln", "install", "rename", "tar", "unzip", "cpio", "ditto"]);
/** Commands whose operands are files they create, change or remove (sed and perl only with -i). */
const WRITERS = new Set([...MOVERS, "touch", "tee", "rm", "truncate", "chmod", "dd", "mkdir", "patch", "shred"]);

/** The workspace files a command that writes files names as operands (workspace-relative). */
function operandWrites(cmd: SimpleCommand, workspace: Workspace): string[] {
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
async function touchesProtected(cmd: SimpleCommand, workspace: Workspace): Promise<string | undefined> {
  for (const a of cmd.args) {
    if (a.dynamic || a.text.startsWith("-") || cmd.cwd === undefined) continue;
    const absolute = path.resolve(
      cmd.cwd,
      a.text.includes("=") && !a.text.startsWith("/") ? a.text.slice(a.text.indexOf("=") + 1) : a.text,
    );
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

/**
 * For text the grammar cannot parse: split on operators and blanks, drop quotes and escapes,
 * expand braces, take names without their paths. Crude on purpose: it only ever adds subjects
 * (so deny rules and the dangerous list still see `{rm,-rf,/}`), never removes a question.
 */
export function fallbackCommands(source: string): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  for (const segment of source.split(/[;&|\n()`<>]+|\$\(|\bthen\b|\bdo\b|\belse\b/)) {
    const tokens = segment
      .replace(/\\\n/g, "")
      .replace(/['"\\]/g, "")
      .trim()
      .split(/\s+/)
      .filter((t) => t && t !== "{" && t !== "}" && t !== "!")
      .flatMap((t) => expandBraces(t) ?? [t]);
    while (tokens.length && /^(if|elif|while|until|then|do|else|time|coproc|function|!|\{|\})$/.test(tokens[0]!)) tokens.shift();
    if (!tokens.length) continue;
    const words: Word[] = tokens.map((t) => ({
      text: t,
      dynamic: t.includes("$"),
      staticPrefix: t.split("$")[0]!,
      glob: /[*?[]/.test(t),
      brace: false,
      tilde: t.startsWith("~"),
      raw: t,
    }));
    const [first, ...args] = words;
    const name = path.posix.basename(first!.text);
    const text = [name, ...args.map((a) => a.text)].join(" ");
    out.push({
      name,
      args,
      assignments: [],
      text,
      bare: text,
      dynamic: true,
      dynamicName: first!.dynamic,
      cwd: undefined,
      via: ["unparsed"],
      inFunctions: [],
    });
  }
  return out;
}

/** `git -C x --no-pager push` also as `git push`, so a deny rule on `git push` sees it. */
function gitWithoutGlobals(c: SimpleCommand): string[] {
  if (c.name !== "git") return [];
  const { globals, sub, rest } = gitSubcommand(c);
  if (!globals.length || !sub) return [];
  return [["git", sub, ...rest.map((a) => (a.dynamic ? a.text : shellQuote(a.text)))].join(" ")];
}

/** Interpreters given code on the command line: what that code does cannot be judged. */
const INLINE_CODE: Record<string, RegExp> = {
  python: /^-[A-Za-z]*c/,
  python3: /^-[A-Za-z]*c/,
  python2: /^-[A-Za-z]*c/,
  node: /^(-e|-p|--eval|--print)/,
  nodejs: /^(-e|-p|--eval|--print)/,
  deno: /^eval$/,
  bun: /^(-e|--eval)/,
  perl: /^-[A-Za-z]*[eE]/,
  ruby: /^-[A-Za-z]*e/,
  php: /^-[A-Za-z]*r/,
  lua: /^-e/,
  osascript: /^-e/,
  pwsh: /^-(c|command)$/i,
};

function inlineCode(cmd: { name: string; args: Word[] }): string | undefined {
  if (/^(awk|gawk|mawk|nawk)$/.test(cmd.name)) {
    // awk programs may run commands (`system()`, pipes) or write files (`print > f`).
    const program = cmd.args.find((a) => !a.text.startsWith("-"));
    if (
      cmd.args.some((a) => a.text === "-f" || a.text.startsWith("--file")) ||
      !program ||
      program.dynamic ||
      /system|\||>|getline|ENVIRON/.test(program.text)
    ) {
      return `${cmd.name} runs a program that may run commands or write files`;
    }
    return undefined;
  }
  const re = INLINE_CODE[cmd.name];
  if (!re) return undefined;
  return cmd.args.some((a) => re.test(a.text)) ? `${cmd.name} runs code given on the command line, which cannot be checked` : undefined;
}

/**
 * Judges a command line for the policy: the subjects rules match, what is always denied,
 * what always asks, and whether it only reads. `cwd` is where it will run (absolute).
 */
export async function judgeCommand(command: string, cwd: string, workspace: Workspace, home = os.homedir()): Promise<CommandJudgement> {
  const analysis = await analyzeCommand(command, { cwd, home });
  // A loop or assignment whose values are in the line (`for i in 1 2; do echo tick $i; done`) is
  // judged as what it runs, value by value: rules and checks then see `echo tick 1`, not `$i`.
  if (analysis.ok && analysis.flags.has("dynamic") && !FLAG_ASKS.some((f) => f !== "dynamic" && analysis.flags.has(f))) {
    const variants = variantsOf(command);
    const judged = variants && (await Promise.all(variants.map((v) => judgeCommand(v, cwd, workspace, home))));
    if (judged && judged.every((j) => j.analysis.ok && !FLAG_ASKS.some((f) => j.analysis.flags.has(f)))) return combine(analysis, judged);
  }
  // The bare form lets deny rules see through `FOO=1 rm`; the full and as-written forms keep allow rules narrow.
  const subjects = [
    ...new Set(analysis.commands.flatMap((c) => [c.bare, c.text, ...(c.written ? [c.written] : []), ...gitWithoutGlobals(c)])),
  ];
  // What the grammar could not read is still matched by deny rules, split the crude way.
  const fallback = analysis.ok ? [] : fallbackCommands(command);
  if (!analysis.ok) subjects.push(...fallback.map((c) => c.text), command.trim());
  subjects.splice(0, subjects.length, ...new Set(subjects));
  const asks: string[] = [];
  const writes: string[] = [];
  let deny: string | undefined;
  let destructive = false;
  let notReadOnly: string | undefined = analysis.ok ? undefined : "it could not be parsed";
  let secret: Secret | undefined;

  if (analysis.flags.has("fork-bomb")) deny = analysis.flags.get("fork-bomb");
  for (const flag of FLAG_ASKS) {
    const why = analysis.flags.get(flag);
    if (why) {
      asks.push(why);
      notReadOnly ??= why;
    }
  }
  for (const flag of ["function", "cwd-unknown"] as const) {
    const why = analysis.flags.get(flag);
    if (why) notReadOnly ??= why;
  }

  for (const cmd of fallback) deny ??= dangerousReason(cmd, home);
  for (const cmd of analysis.commands) {
    deny ??= dangerousReason(cmd, home);
    const d = destructiveReason(cmd);
    if (d) {
      destructive = true;
      asks.push(`${cmd.text}: ${d}`);
    }
    if (cmd.name === "sudo" || cmd.name === "doas" || cmd.name === "su" || cmd.name === "runuser")
      asks.push(`${cmd.name} runs commands as another user`);
    const inline = inlineCode(cmd);
    if (inline) asks.push(inline);
    const elsewhere = packageScriptsElsewhere(cmd, workspace);
    if (elsewhere) asks.push(elsewhere);
    const verdict = readOnlyVerdict(cmd);
    if (!verdict.readOnly) {
      const protectedWhy = await touchesProtected(cmd, workspace);
      if (protectedWhy) asks.push(protectedWhy);
      writes.push(...operandWrites(cmd, workspace));
    }
    if (SHELLS.has(cmd.name) && !cmd.dynamicName) {
      const { script, hasC } = shellScriptArg(cmd.name, cmd.args);
      if (!script && !hasC && cmd.args.every((a) => a.text.startsWith("-"))) asks.push(`${cmd.name} runs a script from its input`);
    }
    secret ??= await secretNamed(cmd.args, cmd.cwd, workspace, home);
    // Whatever else the line does (`npm -v; grep -r KEY .`), a command that reads a secret is one.
    const unnamed = secret ? undefined : await secretUnnamed(cmd, verdict, workspace, home);
    if (unnamed) {
      secret = unnamed;
      notReadOnly ??= unnamed.why;
    }
    if (!notReadOnly) {
      if (!verdict.readOnly) notReadOnly = verdict.reason;
      else {
        if (verdict.noPaths) {
          // echo, true, printf read no files, but bash expands their globs (`echo /etc/*`) to file names.
          for (const a of cmd.args) {
            if (notReadOnly || !a.glob) continue;
            notReadOnly = await checkReadPath(a, cmd.cwd, workspace, home);
          }
        } else if (cmd.cwd === undefined) notReadOnly = "the working directory is only known when it runs";
        else if (!(await insideReally(cmd.cwd, workspace))) notReadOnly = `it runs in ${cmd.cwd}, outside the workspace`;
        for (const p of verdict.paths) {
          if (notReadOnly) break;
          notReadOnly = await checkReadPath(p, cmd.cwd, workspace, home);
        }
      }
    }
  }

  for (const r of analysis.redirections) {
    if (r.target) secret ??= await secretNamed([r.target], r.cwd, workspace, home);
    if (r.write) {
      const w = await checkWrite(r.target, r.cwd, workspace, home);
      if (w?.relative !== undefined) writes.push(w.relative);
      if (w?.deny) deny ??= w.deny;
      if (w?.ask) asks.push(w.ask);
      if (w) notReadOnly ??= w.ask ?? `it writes to ${r.target?.text}`;
    } else if (r.read && r.target && !notReadOnly) {
      notReadOnly = await checkReadPath(r.target, r.cwd, workspace, home);
    }
  }

  const judgement: CommandJudgement = { analysis, subjects, readOnly: !notReadOnly && analysis.ok, destructive };
  if (writes.length) judgement.writes = [...new Set(writes)];
  if (deny) judgement.deny = deny;
  if (asks.length) judgement.ask = [...new Set(asks)].join("; ");
  if (notReadOnly) judgement.notReadOnly = notReadOnly;
  if (secret) {
    judgement.secret = secret.why;
    judgement.secretFile = secret.file;
    judgement.readOnly = false;
  }
  return judgement;
}

/** One judgement for a line from those of its variants: the strictest of each. */
function combine(analysis: CommandAnalysis, judged: CommandJudgement[]): CommandJudgement {
  const asks = [...new Set(judged.flatMap((j) => (j.ask ? [j.ask] : [])))];
  const notReadOnly = judged.find((j) => j.notReadOnly)?.notReadOnly;
  const deny = judged.find((j) => j.deny)?.deny;
  const secretJudged = judged.find((j) => j.secret);
  const writes = [...new Set(judged.flatMap((j) => j.writes ?? []))];
  return {
    analysis,
    subjects: [...new Set(judged.flatMap((j) => j.subjects))],
    readOnly: judged.every((j) => j.readOnly),
    destructive: judged.some((j) => j.destructive),
    ...(deny ? { deny } : {}),
    ...(asks.length ? { ask: asks.join("; ") } : {}),
    ...(notReadOnly ? { notReadOnly } : {}),
    ...(secretJudged ? { secret: secretJudged.secret!, secretFile: secretJudged.secretFile! } : {}),
    ...(writes.length ? { writes } : {}),
  };
}

/** The policy's view: a denial, a forced question, or the effect this call really has. */
export function toAssessment(j: CommandJudgement): Assessment {
  const effect = j.readOnly ? "read" : j.destructive ? "destructive" : "execute";
  return {
    effect,
    ...(j.deny ? { deny: `${j.deny}; this command is never run` } : {}),
    ...(j.ask ? { ask: j.ask } : {}),
    ...(j.secret ? { secret: j.secret, secretFile: j.secretFile! } : {}),
    ...(j.writes ? { writes: j.writes } : {}),
  };
}

/**
 * The first file that may hold secrets a command names (an operand, an option's value, a
 * redirection), inside the workspace or anywhere else (`~/.ssh/id_rsa`). Names only known when it
 * runs are left to the read-only check, which never auto-approves them.
 */
async function secretNamed(
  words: readonly Word[],
  cwd: string | undefined,
  workspace: Workspace,
  home: string,
): Promise<Secret | undefined> {
  for (const w of words) {
    if (w.dynamic) continue;
    const given = w.text.startsWith("-") && w.text.includes("=") ? w.text.slice(w.text.indexOf("=") + 1) : w.text;
    const text = expandTilde(given, home, cwd ?? workspace.root);
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
