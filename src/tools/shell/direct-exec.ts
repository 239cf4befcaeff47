import { plainWords } from "./analysis/plain-words.js";

/** Bash builtins and keywords: these mean something else (or nothing) outside bash. */
const BASH_BUILTINS = new Set(
  (
    "alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable eval exec exit " +
    "export fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return " +
    "set shift shopt source suspend test times trap type typeset ulimit umask unalias unset wait if then else elif fi case esac for " +
    "select while until do done in function time coproc . : [ [[ ]] { } !"
  ).split(" "),
);

/**
 * The argv of a command so plain that bash would only split it on blanks and exec it
 * (`true`, `ls -la src`, `git status`): such a command runs without starting bash first, which
 * halves the cost of a short call. Anything else (quotes, `$`, globs, `~`, assignments,
 * builtins, operators) returns undefined and goes through bash.
 */
export function directArgv(command: string): string[] | undefined {
  const argv = plainWords(command);
  const name = argv?.[0];
  if (argv === undefined || name === undefined) return undefined;
  // `true` and `false` are builtins with identical programs; every other builtin needs bash.
  if (BASH_BUILTINS.has(name) && name !== "true" && name !== "false") return undefined;
  // `./script` without a shebang is run by bash as a bash script; exec would refuse it (ENOEXEC).
  if (name.includes("/")) return undefined;
  return argv;
}
