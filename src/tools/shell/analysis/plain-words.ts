/**
 * Words only: letters, digits and `_./@%+,-` (`:` and `=` too after the first word), separated by
 * spaces or tabs. Nothing bash would quote, escape, expand, glob, redirect or join, no `~`, `#`,
 * operator or line break, and none of the blanks beyond space and tab that JavaScript's `\s`
 * knows (bash reads a no-break space as part of a word).
 */
const PLAIN = /^[ \t]*[A-Za-z0-9_./@%+,-]+(?:[ \t]+[A-Za-z0-9_./:=@%+,-]+)*[ \t]*$/;

/**
 * The words of a command line so plain that bash only splits it on blanks (`ls -la src`,
 * `git status`, `echo hi`); undefined for anything else. What the first word means (a keyword,
 * a builtin, a function) is the caller's to judge.
 */
export function plainWords(command: string): string[] | undefined {
  if (!PLAIN.test(command)) return undefined;
  return command.split(/[ \t]+/).filter((w) => w !== "");
}
