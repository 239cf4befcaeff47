import type { Word } from "../analysis/words.js";
import type { RuleExamples } from "./examples.js";

/** vi's options that give it commands to run (`-c`, `--cmd`, `+CMD` but a line or a search, a script with `-S`/`-s`). */
const VI_COMMANDS = /^(-c|--cmd|-S|-s)$|^\+[^\d/?]/;

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
  // Editors run their own commands given on the command line (`:!cmd`, `system()`, `shell-command`).
  vim: VI_COMMANDS,
  vi: VI_COMMANDS,
  nvim: /^(-c|--cmd|-S|-s|-l)$|^\+[^\d/?]/,
  ex: VI_COMMANDS,
  emacs: /^--?(eval|execute|load|funcall|script|l|f)(=|$)/,
  // Tcl given with -c (`exec`), lldb's commands (`platform shell`), make's own code (`$(shell ...)`).
  expect: /^-[A-Za-z]*c/,
  lldb: /^(-o|-O|-k|-K|--one-line|--one-line-before-file|--one-line-on-crash)(=|$)/,
  make: /^(-E|--eval)(=|$)/,
  gmake: /^(-E|--eval)(=|$)/,
};

/** awk and its kin, whose first operand is a program. */
export const AWKS = /^(awk|gawk|mawk|nawk)$/;

/**
 * The option that gives `name` code on its command line, a versioned interpreter (`python3.11`,
 * `ruby3.2`, `perl5.36`) as its family's; undefined for a program {@link INLINE_CODE} does not name.
 */
export function inlineCodeOption(name: string): RegExp | undefined {
  const family = Object.hasOwn(INLINE_CODE, name) ? name : name.replace(/\d+(\.\d+)*$/, "");
  return Object.hasOwn(INLINE_CODE, family) ? INLINE_CODE[family] : undefined;
}

/** Lines that run code given on the command line, and lines that only look alike. */
export const INLINE_CODE_EXAMPLES: RuleExamples = {
  says: /runs (code given on the command line|a program that may run commands)/,
  match: [
    "python -c 'import os'",
    "python3 -Sc 'print(1)'",
    "python3.11 -c 'import os'",
    "/usr/bin/ruby3.2 -e 'puts 1'",
    "node -e 'require(1)'",
    "node --print 1",
    "perl -E 'say 1'",
    "perl -ne print f.txt",
    "ruby -e 'puts 1'",
    "php -r 'echo 1;'",
    "deno eval 'console.log(1)'",
    "bun --eval 1",
    "lua -e 'print(1)'",
    "pwsh -Command Get-Item",
    "vim -c '!id' -c q f.txt",
    "vim '+!id' f.txt",
    "nvim --cmd 'lua os.execute(1)'",
    "emacs --batch --eval '(shell-command \"id\")'",
    "emacs -batch -l setup.el",
    "awk 'BEGIN { system(\"id\") }'",
    "awk '{ print > \"out\" }' f.txt",
    "awk -f prog.awk f.txt",
  ],
  noMatch: [
    "python script.py",
    "python3.11 script.py",
    "python -m pytest",
    "node app.js",
    "perl script.pl",
    "awk '{ print $1 }' f.txt",
    "ruby -v",
    "vim +12 f.txt",
    "vim f.txt",
    "emacs -nw f.txt",
  ],
};

export function inlineCode(cmd: { name: string; args: Word[] }): string | undefined {
  if (AWKS.test(cmd.name)) {
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
  const re = inlineCodeOption(cmd.name);
  if (!re) return undefined;
  return cmd.args.some((a) => re.test(a.text)) ? `${cmd.name} runs code given on the command line, which cannot be checked` : undefined;
}
