import { spawnSync } from "../process/child-process.js";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Opens `text` in the person's editor (`$VISUAL`, else `$EDITOR`; a command with arguments, such
 * as `code -w`, works) on the terminal, and returns what they saved; undefined with the reason when
 * the editor could not run or failed. The file is private and removed after.
 */
export function editInEditor(editor: string, text: string, name = "arguments.json"): { text: string } | { failed: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tackle-edit-"));
  const file = path.join(dir, name);
  try {
    writeFileSync(file, text, { mode: 0o600 });
    // Through the shell, as git does, so an editor given with its arguments runs as written.
    const run = spawnSync("/bin/sh", ["-c", `${editor} "$1"`, "sh", file], { stdio: "inherit" });
    if (run.error) return { failed: `the editor (${editor}) could not start: ${run.error.message}` };
    if (run.status !== 0) return { failed: `the editor (${editor}) exited with code ${run.status ?? run.signal}` };
    return { text: readFileSync(file, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
