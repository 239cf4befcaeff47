import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

let dir: string | undefined;

/**
 * The folder the shell's sandbox shows as /tmp: private to this tackle process (0700, made on
 * first use, removed at exit) and the same for each of its commands, so a file one command leaves
 * in /tmp is there for the next, as on the host, while the host's /tmp stays out of reach.
 */
export function sessionTmp(): string {
  if (dir) return dir;
  const made = mkdtempSync(path.join(os.tmpdir(), "tackle-sandbox-tmp-"));
  dir = made;
  process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  return made;
}
