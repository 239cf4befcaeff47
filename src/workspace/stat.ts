import { lstatSync, statSync, type Stats } from "node:fs";

// The stats below are synchronous: one stat of a local file takes microseconds, less than the
// thread-pool round trip of the promise API, and every file tool makes one or two per call.

/** lstat that returns undefined for a missing path. */
export function lstatOrUndefined(p: string): Stats | undefined {
  return missingAsUndefined(() => lstatSync(p));
}

/** stat (following links) that returns undefined for a missing path. */
export function statOrUndefined(p: string): Stats | undefined {
  return missingAsUndefined(() => statSync(p));
}

function missingAsUndefined(read: () => Stats): Stats | undefined {
  try {
    return read();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw err;
  }
}
