import picomatch from "picomatch";

/** glob's pattern and where it applies: to paths relative to the search base, less their first `cut` characters. */
export interface GlobFilter {
  pattern: string;
  cut: number;
}

const PICO: picomatch.PicomatchOptions = { dot: true };

/** Tests a path relative to the search base against glob's pattern; throws if the pattern is not a valid glob. */
export function globMatcher({ pattern, cut }: GlobFilter): (relative: string) => boolean {
  // Every file matches these; picomatch would say so 30,000 times over.
  if (pattern === "**" || pattern === "**/*") return () => true;
  const isMatch = picomatch(pattern, PICO);
  return cut ? (relative) => isMatch(relative.slice(cut)) : isMatch;
}
