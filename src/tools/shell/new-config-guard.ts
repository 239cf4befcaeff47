import { existsSync, renameSync } from "node:fs";
import path from "node:path";
import { CONFIG_FILES, hasTackleKeys } from "../../config/config.js";
import { Workspace } from "../../workspace/workspace.js";

/*
 * The workspace sandbox binds tackle's configuration read-only where it exists, but a command may
 * create it where it does not (a script writing tackle.config.json): the next tackle start would
 * take that file's permissions for the person's. So a file of tackle's configuration that appears
 * while a command runs, in the folders tackle looks in from that command's cwd, is moved aside.
 */

/** The configuration entries tackle reads from `cwd`: each folder's config files up to the root, and `.tackle`. */
function candidates(root: string, cwd: string): string[] {
  const out = [path.join(root, ".tackle")];
  for (let dir = cwd; Workspace.isInside(root, dir); dir = path.dirname(dir)) {
    for (const name of CONFIG_FILES) out.push(path.join(dir, name));
    if (dir === root) break;
  }
  return out;
}

/**
 * Notes which configuration entries exist before a command runs; the function it returns moves
 * aside those the command created, and says so (undefined when there are none).
 */
export function watchNewConfig(root: string, cwd: string): () => string | undefined {
  const watched = candidates(root, cwd).filter((p) => !existsSync(p));
  return () => {
    const moved: string[] = [];
    for (const p of watched) {
      if (!existsSync(p)) continue;
      if (path.basename(p) === "config.json" && !hasTackleKeys(p)) continue;
      let target = `${p}.refused`;
      for (let i = 2; existsSync(target); i++) target = `${p}.refused-${i}`;
      renameSync(p, target);
      moved.push(`${path.relative(root, p)} → ${path.relative(root, target)}`);
    }
    if (!moved.length) return undefined;
    return (
      `[The command created tackle's configuration, which only a person may write; it was moved aside: ${moved.join(", ")}. ` +
      "Tell the person if it is meant to be used.]"
    );
  };
}
