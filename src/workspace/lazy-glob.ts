import picomatch from "picomatch";

/**
 * A picomatch matcher compiled the first time it is asked: compiling dozens of patterns when the
 * module loads costs every start, runs that never look at a path included.
 */
export function lazyGlob(patterns: readonly string[], options: picomatch.PicomatchOptions): (path: string) => boolean {
  let match: ((path: string) => boolean) | undefined;
  return (path) => (match ??= picomatch(patterns as string[], options))(path);
}

/**
 * Text every path a glob of `patterns` matches must contain: for each its longest run of characters
 * that are not glob syntax or "/", lower-cased. Undefined when one has none (`**`), which leaves
 * nothing to look for first.
 */
export function literalsOf(patterns: readonly string[]): string[] | undefined {
  const literals = patterns.map((p) =>
    p
      .split(/[*?/[\]{}()!+@,]+/)
      .reduce((a, b) => (b.length > a.length ? b : a), "")
      .toLowerCase(),
  );
  return literals.includes("") ? undefined : literals;
}
