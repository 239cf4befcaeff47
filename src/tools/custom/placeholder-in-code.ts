import { SHELLS, shellScriptArg, unwrap } from "../shell/analysis/wrappers.js";
import { literalWord } from "../shell/analysis/words.js";
import { AWKS, inlineCodeOption } from "../shell/rules/inline-code.js";
import { commandName } from "../shell/analysis/command-analysis.js";

/** A placeholder in a configured tool's command: `{name}`, replaced by that argument. */
export const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** An entry that is one placeholder and nothing else: the argument's value becomes the whole entry. */
export const WHOLE_PLACEHOLDER = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * Why a configured tool's command cannot be used: a placeholder where its value could be read as
 * code rather than as the one argv entry every other placeholder fills. `["sh", "-c", "grep {pattern} ."]`
 * with `{pattern}` = `x; rm -rf .` ran both commands, with the approval the tool's effect gives (none,
 * for "read", in mode safe). These programs take such text:
 *
 * - Those that run code given on their command line, found as the shell's judgement finds them (a
 *   shell with `-c`, `su -c` and its kin, `python -c`, `node -e`, an awk program): any placeholder
 *   inside a longer entry after them counts, since options move the code about (`bash --rcfile f -c
 *   CODE`). One that is a whole entry stays one word, even as the code itself (the person's choice).
 * - Those that join their arguments into text a shell runs, with nothing to mark it (`ssh host
 *   COMMAND...`, `watch`, GNU `parallel`): there even a whole entry is shell text.
 * - env -S, which splits its string into arguments in its own way (quotes, escapes, `${NAME}`):
 *   there a value could add arguments or a whole command, whole entry or not. The arguments the
 *   split makes are checked in turn as the command they are.
 * - make, whose variables (`NAME={value}`) its recipes put into shell text; a whole-entry value
 *   with "=" is refused at each call instead (see takesVariables). And sed, whose script may run a
 *   command (`e`) or write a file (`w`): a placeholder inside it, not a whole entry.
 *
 * Each is found after any wrapper (`env`, `timeout`, `sudo`).
 */
export function placeholderInCode(template: readonly string[]): string | undefined {
  for (let i = 0; i < template.length; i++) {
    const name = commandName(template[i]!);
    const args = template.slice(i + 1);
    if (name === "env") {
      const unwrapped = unwrap(name, args.map(literalWord));
      const split = unwrapped.kind === "transparent" ? unwrapped : undefined;
      const holding = split?.split.find((s) => PLACEHOLDER_IN.test(s.text));
      if (holding) {
        return (
          `it puts ${PLACEHOLDER_IN.exec(holding.text)![0]} in the string env -S splits into arguments ("${holding.text.slice(0, 80)}"): ` +
          `a value there could add arguments or a command, whole entry or not. Give the value an entry of its own after the string.`
        );
      }
      if (split && split.split.length > 0) return placeholderInCode(split.inner.map((w) => w.text));
    }
    const joined = shellTextFrom(name, args);
    if (joined !== undefined) {
      const found = args
        .slice(joined)
        .map((entry) => PLACEHOLDER_IN.exec(entry))
        .find(Boolean);
      if (found) {
        return (
          `it puts ${found[0]} among the arguments ${name} joins into a command a shell runs${name === "ssh" ? " on the remote host" : ""}: ` +
          `a value there could run as code, whole entry or not. Run a fixed command there, or a script of your own that takes the value as an argument.`
        );
      }
    }
    if (MAKES.test(name)) {
      const assignment = args.find((entry) => /^[^=]*=/.test(entry) && !WHOLE_PLACEHOLDER.test(entry) && PLACEHOLDER_IN.test(entry));
      if (assignment) {
        return (
          `it puts a placeholder inside the make variable "${assignment.slice(0, 80)}": make's recipes run its value as shell text, ` +
          `where a value could run as code. Give the variable a fixed value; a value that is a whole entry is taken as a target name.`
        );
      }
    }
    if (SEDS.test(name)) {
      const script = sedScripts(args)
        .map((j) => args[j]!)
        .find((entry) => !WHOLE_PLACEHOLDER.test(entry) && PLACEHOLDER_IN.test(entry));
      if (script) {
        return (
          `it puts a placeholder inside the script sed runs ("${script.slice(0, 80)}"), where a value could add commands ` +
          `(e runs a shell command, w writes a file). Give sed a fixed script, or make the value a number in the tool's parameters.`
        );
      }
    }
    if (!runsInlineCode(name, args)) continue;
    for (const entry of args) {
      const found = WHOLE_PLACEHOLDER.test(entry) ? null : PLACEHOLDER_IN.exec(entry);
      if (!found) continue;
      return (
        `it puts ${found[0]} inside an argument of ${name}, which runs code given on its command line ("${entry.slice(0, 80)}"): ` +
        `a value there could run as code. Give the value an entry of its own and read it there: for a shell, ` +
        `["${name}", "-c", "... \\"$1\\" ...", "${name}", "${found[0]}"]; an interpreter's arguments (sys.argv, process.argv) likewise.`
      );
    }
  }
  return undefined;
}

const PLACEHOLDER_IN = new RegExp(PLACEHOLDER.source);

/** make and its kin, which take `NAME=value` arguments as variables their recipes put into shell text. */
const MAKES = /^(make|gmake|bmake|pmake|remake)$/;

/** Whether the entry at `index` of `template` is an argument of make (which reads `NAME=value` as a variable). */
export function takesVariables(template: readonly string[], index: number): boolean {
  return template.slice(0, index).some((entry) => MAKES.test(commandName(entry)));
}

/**
 * Options that give a program a command line a shell runs, by program: `su -c` and its kin (also
 * glued on, `-cCMD`, `-lc`, or long, `--command=`), gdb's `-ex 'shell CMD'`, perf's `--pre`/`--post`,
 * git grep's `-O`, entr's `-s`.
 */
const SHELL_COMMAND_OPTIONS: Record<string, RegExp> = {
  su: /^(-[A-Za-z]*c|--co|--se)/,
  runuser: /^(-[A-Za-z]*c|--co|--se)/,
  flock: /^(-[A-Za-z]*c|--co)/,
  script: /^(-[A-Za-z]*c|--co)/,
  gdb: /^--?(ex|iex|eval-command|init-eval-command)(=|$)/,
  perf: /^--(pre|post)/,
  git: /^(-[A-Za-z]*O|--op)/,
  entr: /^-[a-z]*s/,
};

/** Whether `name` given `args` runs code written in them: `sh -c`, `su -c`, `python -c`, `node -e`, an awk program not read from a file. */
function runsInlineCode(name: string, args: readonly string[]): boolean {
  // Only options before the script count: `bash deploy.sh -clean` passes -clean to the script.
  if (SHELLS.has(name)) return shellScriptArg(name, args.map(literalWord)).hasC;
  if (Object.hasOwn(SHELL_COMMAND_OPTIONS, name)) return args.some((a) => SHELL_COMMAND_OPTIONS[name]!.test(a));
  if (AWKS.test(name)) return !args.some((a) => a === "-f" || a.startsWith("--file"));
  const option = inlineCodeOption(name);
  return option !== undefined && args.some((a) => option.test(a));
}

const SEDS = /^(sed|gsed)$/;

/**
 * Where sed's scripts are in `args`: each `-e` value (`-ne` too); else, unless `-f` reads one from a
 * file, its first operand. GNU sed takes options anywhere, so both are sought through all of `args`.
 */
function sedScripts(args: readonly string[]): number[] {
  const scripts: number[] = [];
  const operands: number[] = [];
  let fromFile = false;
  for (let j = 0; j < args.length; j++) {
    const a = args[j]!;
    if (a === "--") {
      for (let k = j + 1; k < args.length; k++) operands.push(k);
      break;
    }
    if (/^-[A-Za-z]*e$/.test(a) || a === "--expression") scripts.push(++j);
    else if (a.startsWith("--expression=") || /^-e./.test(a)) scripts.push(j);
    else if (/^-[A-Za-z]*f$/.test(a) || a === "--file") {
      fromFile = true;
      j++;
    } else if (a.startsWith("--file=") || /^-f./.test(a)) fromFile = true;
    else if (a === "-l" || a === "--line-length") j++;
    else if (!a.startsWith("-")) operands.push(j);
  }
  if (scripts.length === 0 && !fromFile && operands.length > 0) scripts.push(operands[0]!);
  return scripts.filter((j) => j < args.length);
}

/** ssh's options that take a value: what follows them is not the destination. */
const SSH_VALUED = /^-[BbcDEeFIiJLlmOopQRSWw]$/;

/**
 * Where the arguments that `name` joins into shell text begin, as an index into `args`; undefined
 * for a program that does not. ssh: after the destination (the remote shell runs the rest). watch:
 * its command, unless `-x` runs it without a shell. GNU parallel and its sem, tmux and sg: all of them.
 */
function shellTextFrom(name: string, args: readonly string[]): number | undefined {
  // tmux hands a command given as one word to the shell; sg joins its arguments for the shell.
  if (name === "parallel" || name === "sem" || name === "tmux" || name === "sg") return 0;
  if (name === "ssh") {
    for (let j = 0; j < args.length; j++) {
      if (SSH_VALUED.test(args[j]!)) j++;
      else if (!args[j]!.startsWith("-")) return j + 1;
    }
    return undefined;
  }
  if (name === "watch") {
    if (args.some((a) => a === "-x" || a === "--exec")) return undefined;
    for (let j = 0; j < args.length; j++) {
      if (/^(-n|--interval)$/.test(args[j]!)) j++;
      else if (!args[j]!.startsWith("-")) return j;
    }
  }
  return undefined;
}
