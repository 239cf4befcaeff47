import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/*
 * tackle keeps state under $XDG_STATE_HOME/tackle (desks, server tokens): the suite gives it a
 * folder of its own, removed after, so tests neither read a person's state nor leave theirs behind.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tackle-test-state-"));
  process.env.XDG_STATE_HOME = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
