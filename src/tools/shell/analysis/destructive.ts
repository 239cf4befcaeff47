import type { SimpleCommand } from "./command-analysis.js";
import { hasOption, splitOptions } from "./flags.js";

/** Commands that delete, move or overwrite whatever their arguments name. */
const DESTRUCTIVE_VERBS = new Set([
  "rm",
  "rmdir",
  "unlink",
  "shred",
  "truncate",
  "srm",
  "mv",
  "dd",
  "wipe",
  "kill",
  "pkill",
  "killall",
  "fuser",
]);

/** Git's global options that take a value (`git -C dir status`). */
const GIT_VALUED = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--super-prefix", "--config-env"]);

/** Splits `git [global options] subcommand args` into the subcommand and what follows it. */
export function gitSubcommand(cmd: Pick<SimpleCommand, "args">): {
  globals: string[];
  sub: string | undefined;
  rest: SimpleCommand["args"];
} {
  const globals: string[] = [];
  const args = cmd.args;
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!.text;
    if (t.startsWith("-")) {
      globals.push(t);
      if (GIT_VALUED.has(t)) globals.push(args[++i]?.text ?? "");
      continue;
    }
    return { globals, sub: t, rest: args.slice(i + 1) };
  }
  return { globals, sub: undefined, rest: [] };
}

function gitReason(cmd: SimpleCommand): string | undefined {
  const { sub, rest } = gitSubcommand(cmd);
  const { options, operands } = splitOptions(rest);
  const has = (short: string, long: string[] = []) => hasOption(options, short, long);
  switch (sub) {
    case "push":
      if (
        has("fd", ["force", "force-with-lease", "force-if-includes", "delete", "mirror", "prune"]) ||
        operands.some((o) => o.text.startsWith("+") || o.text.startsWith(":"))
      ) {
        return "git push that overwrites or deletes remote history";
      }
      return undefined;
    case "reset":
      return has("", ["hard", "keep", "merge"]) ? "git reset --hard discards uncommitted work" : undefined;
    case "clean":
      return has("f", ["force"]) ? "git clean -f deletes untracked files" : undefined;
    case "checkout":
      if (has("f", ["force", "discard-changes"]) || rest.some((a) => a.text === "--" || a.text === "."))
        return "git checkout that discards local changes";
      return undefined;
    case "switch":
      return has("f", ["force", "discard-changes"]) ? "git switch --discard-changes discards local changes" : undefined;
    case "restore":
      return "git restore discards local changes";
    case "rm":
      return "git rm deletes files";
    case "branch":
      return has("D", []) || (has("d", ["delete"]) && has("f", ["force"])) || has("M", [])
        ? "git branch that deletes or overwrites a branch"
        : undefined;
    case "stash":
      return operands[0] && ["drop", "clear"].includes(operands[0].text) ? `git stash ${operands[0].text} deletes stashed work` : undefined;
    case "reflog":
      return operands[0] && ["expire", "delete"].includes(operands[0].text) ? "git reflog expire deletes recovery points" : undefined;
    case "gc":
      return has("", ["prune"]) ? "git gc --prune deletes unreachable commits" : undefined;
    case "filter-branch":
    case "filter-repo":
      return `git ${sub} rewrites history`;
    case "update-ref":
      return has("d", []) ? "git update-ref -d deletes a ref" : undefined;
    case "tag":
      return has("d", ["delete"]) ? "git tag -d deletes a tag" : undefined;
    case "worktree":
      return operands[0]?.text === "remove" || operands[0]?.text === "prune"
        ? `git worktree ${operands[0].text} deletes a working tree`
        : undefined;
    default:
      return undefined;
  }
}

/**
 * Commands that destroy data and so always ask (spec 002's destructive list): `rm`, `mv`, `dd`,
 * recursive `chmod`/`chown`, `find -delete`, `rsync --delete`, force pushes and hard resets.
 * Returns the reason, or undefined.
 */
export function destructiveReason(cmd: SimpleCommand): string | undefined {
  const name = cmd.name;
  if (DESTRUCTIVE_VERBS.has(name)) return `${name} deletes, moves or overwrites files or processes`;
  const { options, operands } = splitOptions(cmd.args);
  switch (name) {
    case "chmod":
    case "chown":
    case "chgrp":
      return hasOption(options, "R", ["recursive"]) ? `${name} -R changes a whole tree` : undefined;
    case "find":
      return cmd.args.some((a) => a.text === "-delete") ? "find -delete deletes files" : undefined;
    case "rsync":
      return options.some((o) => o.startsWith("--delete") || o.startsWith("--remove-source-files"))
        ? "rsync --delete deletes files"
        : undefined;
    case "crontab":
      return hasOption(options, "r", []) ? "crontab -r deletes the crontab" : undefined;
    case "git":
      return gitReason(cmd);
    case "docker":
    case "podman":
      return operands.some((o) => ["rm", "rmi", "prune", "kill"].includes(o.text))
        ? `${name} ${operands.map((o) => o.text).join(" ")} deletes containers, images or volumes`
        : undefined;
    case "kubectl":
      return operands[0]?.text === "delete" ? "kubectl delete deletes resources" : undefined;
    case "terraform":
    case "tofu":
      return operands[0]?.text === "destroy" || hasOption(options, "", ["destroy"]) ? `${name} destroy deletes infrastructure` : undefined;
    case "npm":
      return operands[0]?.text === "unpublish" ? "npm unpublish deletes a published package" : undefined;
    case "gh":
      return operands.some((o) => o.text === "delete") ? "gh ... delete deletes a remote resource" : undefined;
    default:
      return undefined;
  }
}
