import path from "node:path";
import { Workspace } from "../../../workspace/workspace.js";
import { isSensitivePath } from "../../../workspace/sensitive.js";
import { expandTilde } from "../analysis/command-analysis.js";
import { HARMLESS_DEVICES } from "../rules/critical-paths.js";
import type { Word } from "../analysis/words.js";

/*
 * Whether what a command reads stays inside the workspace: paths, globs and the folder it runs in.
 */
// Only commands with glob words need it; loading it (and the matcher it brings) at start-up would cost every session.
const tinyglobby = () => import("tinyglobby");

export async function checkReadPath(word: Word, cwd: string | undefined, workspace: Workspace, home: string): Promise<string | undefined> {
  if (word.dynamic) return `"${word.raw}" is only known when it runs`;
  if (word.brace) return `"${word.raw}" uses brace expansion`;
  const text = expandTilde(word.text, home, cwd);
  if (text.startsWith("~")) return `"${word.raw}" names another user's home`;
  if (HARMLESS_DEVICES.test(text)) return undefined;
  if (!path.isAbsolute(text) && cwd === undefined) return "the working directory is only known when it runs";
  const base = cwd ?? workspace.root;
  if (word.glob) {
    // Expand the pattern as bash would and judge each file it names.
    const staticPart = text.split(/[*?[]/)[0]!;
    const dir = path.resolve(base, staticPart.includes("/") ? staticPart.slice(0, staticPart.lastIndexOf("/") + 1) : ".");
    if (!workspace.rootOf(dir)) return `"${word.raw}" reads outside the workspace`;
    const matches = await expandGlob(text, base);
    if (!matches) return `"${word.raw}" could not be expanded`;
    for (const m of matches.slice(0, 2000)) {
      const why = await checkResolved(m, workspace);
      if (why) return why;
    }
    return matches.length > 2000 ? `"${word.raw}" names too many files to check` : undefined;
  }
  return checkResolved(path.resolve(base, text), workspace);
}

/** The files a glob names, as bash expands it (`*` skips dot files, `.e*` does not), absolute. */
export async function expandGlob(pattern: string, base: string): Promise<string[] | undefined> {
  const { glob } = await tinyglobby();
  return glob([path.relative(base, path.resolve(base, pattern)) || "."], {
    cwd: base,
    dot: false,
    onlyFiles: false,
    expandDirectories: false,
    absolute: true,
  }).catch(() => undefined);
}

async function checkResolved(absolute: string, workspace: Workspace): Promise<string | undefined> {
  const lexical = workspace.rootOf(absolute);
  if (!lexical) return `${absolute} is outside the workspace`;
  if (isSensitivePath(path.relative(lexical, absolute).split(path.sep).join("/")))
    return `${workspace.relative(absolute)} may hold secrets`;
  try {
    const resolved = await workspace.resolve(absolute);
    if (isSensitivePath(resolved.relative)) return `${resolved.relative} may hold secrets`;
  } catch {
    return `${absolute} leads outside the workspace`;
  }
  return undefined;
}

/** Whether a directory is inside the workspace once symlinks are followed (`cd link` may lead out). */
export async function insideReally(dir: string, workspace: Workspace): Promise<boolean> {
  if (!workspace.rootOf(dir)) return false;
  try {
    await workspace.resolve(dir);
    return true;
  } catch {
    return false;
  }
}
