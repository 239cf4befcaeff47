import { chmodSync, lstatSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";

/** Removes a folder tree even where the code (or overlayfs's work folder) left folders unreadable. */
export function removeTree(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
    return;
  } catch {
    // a folder without permissions: open every folder up, then remove
  }
  const pending = [dir];
  while (pending.length) {
    const d = pending.pop()!;
    try {
      if (!lstatSync(d).isDirectory()) continue;
      chmodSync(d, 0o700);
      for (const name of readdirSync(d)) pending.push(path.join(d, name));
    } catch {
      // gone, or not ours
    }
  }
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // what is left is inside the support folder, removed when the process exits
  }
}
