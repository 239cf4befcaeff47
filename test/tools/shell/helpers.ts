import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Workspace } from "../../../src/workspace/workspace.js";

/** A temporary workspace with a few ordinary files and one secret. */
export function makeWorkspace(): { root: string; workspace: Workspace; cleanup: () => void } {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-shell-test-")));
  mkdirSync(path.join(root, "src"));
  writeFileSync(path.join(root, "a.txt"), "alpha\nbeta\n");
  writeFileSync(path.join(root, "README.md"), "# readme\n");
  writeFileSync(path.join(root, "src", "x.ts"), "export const x = 1;\n");
  writeFileSync(path.join(root, "package.json"), '{"name":"t"}\n');
  writeFileSync(path.join(root, ".env"), "SECRET=1\n");
  writeFileSync(path.join(root, "key.pem"), "-----BEGIN-----\n");
  return { root, workspace: Workspace.open(root), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export { processesWith } from "../../support/processes.js";

/** Waits until `check` holds, up to `ms`. */
export async function eventually(check: () => boolean, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}
