import { lstatSync, statSync, type Stats } from "node:fs";

// The stats below are synchronous: one stat of a local file takes microseconds, less than the
// thread-pool round trip of the promise API, and every file tool makes one or two per call.

// A missing path is the common answer (tackle asks about many files that are not there), and an
// exception costs ten times the question: it is asked for without one.
const NO_THROW = { throwIfNoEntry: false } as const;

/** lstat that returns undefined for a missing path. */
export function lstatOrUndefined(p: string): Stats | undefined {
  return missingAsUndefined(() => lstatSync(p, NO_THROW));
}

/** stat (following links) that returns undefined for a missing path. */
export function statOrUndefined(p: string): Stats | undefined {
  return missingAsUndefined(() => statSync(p, NO_THROW));
}

/** Whether anything is at `p`, a link counting as itself; any error (a folder that cannot be searched) counts as nothing. */
export function entryExists(p: string): boolean {
  try {
    return lstatSync(p, NO_THROW) !== undefined;
  } catch {
    return false;
  }
}

function missingAsUndefined(read: () => Stats | undefined): Stats | undefined {
  try {
    return read();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw err;
  }
}
