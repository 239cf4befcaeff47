import picomatch from "picomatch";

/**
 * A picomatch matcher compiled the first time it is asked: compiling dozens of patterns when the
 * module loads costs every start, runs that never look at a path included.
 */
export function lazyGlob(patterns: readonly string[], options: picomatch.PicomatchOptions): (path: string) => boolean {
  let match: ((path: string) => boolean) | undefined;
  return (path) => (match ??= picomatch(patterns as string[], options))(path);
}
