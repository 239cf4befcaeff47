import path from "node:path";
import picomatch from "picomatch";
import { ToolError } from "../../core/errors.js";

/** grep's `glob` argument: which files to search. */
export interface FileFilter {
  /** The filter as given, for messages. */
  source: string;
  /** Tests a path relative to the search root. */
  matches: (relativeToSearchRoot: string) => boolean;
  /** ripgrep flags that narrow its walk the same way (it is also checked afterwards), if any. */
  rgArgs: string[];
}

const PICO: picomatch.PicomatchOptions = { dot: true };
/** Globs ripgrep's --type-add reads the same way picomatch does: safe to let rg pre-filter. */
const SIMPLE_BASENAME_GLOB = /^[A-Za-z0-9_.*?{},-]+$/;

/**
 * Compiles grep's `glob` filter. A glob without "/" matches file names at any depth (`*.ts`,
 * `*.{ts,tsx}`); one with "/" matches the path relative to the search directory (`src/**∕*.ts`).
 * A leading "!" excludes instead. The filter narrows what the ignore rules kept; it never brings
 * back an ignored file (ripgrep's own --glob would).
 */
export function compileFileFilter(glob: string | undefined): FileFilter | undefined {
  if (glob === undefined || glob.trim() === "") return undefined;
  const source = glob.trim();
  const negated = source.startsWith("!");
  const body = negated ? source.slice(1) : source;
  if (body === "") throw new ToolError("INVALID_ARGS", `The glob "${source}" is empty after "!"; give a pattern such as "*.ts".`);
  let test: (p: string) => boolean;
  try {
    test = picomatch(body.replace(/^\.\//, ""), PICO);
  } catch (err) {
    throw new ToolError("INVALID_ARGS", `The glob "${source}" is not a valid glob (${(err as Error).message}).`);
  }
  const byName = !body.includes("/");
  const matches = byName ? (rel: string) => test(path.posix.basename(rel)) !== negated : (rel: string) => test(rel) !== negated;
  const rgArgs =
    byName && SIMPLE_BASENAME_GLOB.test(body)
      ? [`--type-add=tacklefilter:${body}`, negated ? "--type-not=tacklefilter" : "--type=tacklefilter"]
      : [];
  return { source, matches, rgArgs };
}
