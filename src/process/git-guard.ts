import { execFile } from "./child-process.js";
import { commandEnv } from "./command-env.js";

/*
 * What keeps a repository's own files from running programs when tackle runs git to judge a
 * call or to answer a read tool. A model can write a repository file by file (a nested `.git`,
 * or a bare repository's HEAD, config and objects under a plain folder name); git then reads
 * that config on the next command run there. Settings given with `-c` outrank every config file,
 * so each way config names a program is switched off here, and git is never pointed at a bare
 * repository it found by itself.
 */

/**
 * `-c` settings for every git tackle runs for itself. What a push or a signed commit needs (ssh,
 * credentials, gpg) stays: those commands have a person's approval and reach no repository config
 * a tool can write.
 */
const GUARD: ReadonlyArray<readonly [string, string]> = [
  ["safe.bareRepository", "explicit"],
  ["core.fsmonitor", "false"],
  ["core.pager", "cat"],
  ["core.alternateRefsCommand", ""],
  ["diff.external", ""],
  // Verifying a signature runs gpg.program, which repository config may name.
  ["log.showSignature", "false"],
  ["uploadpack.packObjectsHook", ""],
  ["color.ui", "never"],
];

const FILTER_KEYS = ["clean", "smudge", "process"] as const;

/**
 * The `-c` arguments that switch off, for one run of git in `cwd`, every program the repository's
 * config could start: the fixed settings above, and each content filter the config defines
 * (`filter.<name>.clean/smudge/process`, which `git status` and `git diff` run). Filters are
 * found with `git config`, which reads config without running anything. Hooks are off too, unless
 * `hooks` is set: a commit a person approved runs the repository's own (tools cannot write them).
 */
export async function gitGuardArgs(cwd: string, options: { hooks?: boolean } = {}): Promise<string[]> {
  const args = GUARD.flatMap(([key, value]) => ["-c", `${key}=${value}`]);
  if (!options.hooks) args.push("-c", "core.hooksPath=/dev/null");
  const names = await new Promise<string>((resolve) => {
    execFile(
      "git",
      [...args, "config", "-z", "--name-only", "--get-regexp", "^filter\\."],
      { cwd, timeout: 10_000, env: commandEnv({ LC_ALL: "C" }) },
      (_err, stdout) => resolve(stdout ?? ""),
    );
  });
  const filters = new Set<string>();
  for (const key of names.split("\0")) {
    const match = /^filter\.(.+)\.[^.]+$/s.exec(key);
    if (match) filters.add(match[1]!);
  }
  for (const name of filters) {
    for (const key of FILTER_KEYS) args.push("-c", `filter.${name}.${key}=`);
    args.push("-c", `filter.${name}.required=false`);
  }
  return args;
}

/** Options for a git command that shows diffs: never an external diff program or a textconv filter. */
export const NO_DIFF_PROGRAMS = ["--no-ext-diff", "--no-textconv"] as const;

/**
 * Wraps a program to run it confined (the read-only sandbox), with `extra` variables for it (a
 * language server's configured `env`); undefined runs it as it is. The `env` returned, when there
 * is one, is the environment bubblewrap's process gets and passes on.
 */
export type Confine = (
  argv: readonly string[],
  cwd: string,
  extra?: Readonly<Record<string, string>>,
) => Promise<{ file: string; args: string[]; env?: Record<string, string> } | undefined>;

/**
 * What a guarded git command prints, or undefined when it fails (not a repository, too slow).
 * Several commands in one place can share one `guard`. With `confine` (the judgement passes the
 * read-only sandbox), a program the repository's config names that the guard does not know of
 * still cannot write, reach the network, or read a secret.
 */
export async function guardedGitOutput(
  cwd: string,
  args: readonly string[],
  guard: Promise<string[]> = gitGuardArgs(cwd),
  confine?: Confine,
): Promise<string | undefined> {
  const argv = ["git", ...(await guard), ...args];
  const confined = confine ? await confine(argv, cwd) : undefined;
  const [file, rest] = confined ? [confined.file, confined.args] : ["git", argv.slice(1)];
  return new Promise((resolve) => {
    const env = confined?.env ? { ...confined.env, LC_ALL: "C" } : commandEnv({ LC_ALL: "C" });
    execFile(file, rest, { cwd, timeout: 10_000, maxBuffer: 64 * 1024 * 1024, env }, (err, stdout) => resolve(err ? undefined : stdout));
  });
}
