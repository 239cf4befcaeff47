import picomatch from "picomatch";

/**
 * A picomatch matcher compiled the first time it is asked: compiling dozens of patterns when the
 * module loads costs every start, runs that never look at a path included. Nearly every path asked
 * about holds none of the patterns' literal text ({@link literalsOf}): a few substring searches
 * answer those before any glob runs.
 */
export function lazyGlob(patterns: readonly string[], options: picomatch.PicomatchOptions): (path: string) => boolean {
  let match: ((path: string) => boolean) | undefined;
  let literals: string[] | null | undefined;
  return (path) => {
    literals ??= literalsOf(patterns, options.nocase === true) ?? null;
    if (literals) {
      const text = options.nocase ? path.toLowerCase() : path;
      if (!literals.some((literal) => text.includes(literal))) return false;
    }
    return (match ??= picomatch(patterns as string[], options))(path);
  };
}

/**
 * Text every path a glob of `patterns` matches must contain: for each its longest run of characters
 * that are not glob syntax or "/" (lower-cased with `lowerCase`, for globs matched in any case).
 * Undefined when one has none (`**`), or uses syntax whose runs a match need not contain (braces,
 * classes, extglobs, negation, escapes): then there is nothing to look for first.
 */
export function literalsOf(patterns: readonly string[], lowerCase: boolean): string[] | undefined {
  if (patterns.some((p) => p.startsWith("!") || /[{}[\]()\\]/.test(p))) return undefined;
  const literals = patterns.map((p) => {
    const run = p.split(/[*?/+@,]+/).reduce((a, b) => (b.length > a.length ? b : a), "");
    return lowerCase ? run.toLowerCase() : run;
  });
  return literals.includes("") ? undefined : literals;
}
