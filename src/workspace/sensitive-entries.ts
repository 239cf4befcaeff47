import { lstatSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { isSensitivePath, SENSITIVE_PATTERNS } from "./sensitive.js";
import { executionSensitiveReason } from "./protected.js";

/** Most entries hidden from one sandbox; a workspace with more is refused rather than half hidden. */
export const MAX_SENSITIVE_ENTRIES = 1000;

/**
 * The files and folders in a workspace that may hold secrets (`.env`, `.ssh/`, keys), absolute,
 * topmost only (`.aws`, not `.aws/credentials` too), never a symlink (what it points at is found
 * by its own name, or lies outside). Dependency folders and `.git` are not searched, save with
 * `packages` for `node_modules`.
 */
export async function sensitiveEntries(root: string, options: { packages?: boolean } = {}): Promise<string[]> {
  const found = (await scanTree(root)).sensitive;
  if (options.packages) {
    for (const rel of await packageSecrets(root)) {
      const clean = rel.replace(/\/$/, "");
      if (isSensitivePath(clean) && !found.some((e) => clean === e || clean.startsWith(`${e}/`)) && !isLink(path.join(root, clean)))
        found.push(clean);
    }
  }
  return found.sort().map((rel) => path.join(root, rel));
}

function isLink(absolute: string): boolean {
  try {
    return lstatSync(absolute).isSymbolicLink();
  } catch {
    return true;
  }
}

/** What one folder held when it was last read: its secrets, tackle's configuration, and the folders below it to search. */
interface FolderState {
  ctimeMs: number;
  ino: number;
  sensitive: string[];
  config: string[];
  /** Files and folders that are code (workspace/code-kinds.ts), `.git` folders among them. */
  code: string[];
  folders: string[];
}

/** Names tackle started in a folder takes for its configuration there, its `.env` included (see config/config.ts). */
const CONFIG_NAMES = new Set(["tackle.config.json", "config.json", ".env", ".tackle"]);

/** Each workspace's folders as last read. */
const trees = new Map<string, Map<string, FolderState>>();
/** Folders read between turns of the event loop: a large first search does not hold other calls. */
const FOLDERS_PER_TURN = 200;
/**
 * A folder changed this recently is read again next time: a change within the file system's clock
 * tick could leave its time as it was (as git treats a "racy" index entry).
 */
const RACY_MS = 2_000;

/**
 * Every confined command hides the workspace's secrets, so they are found before each one. A
 * folder's change time moves whenever an entry in it is added, removed or renamed, and whether an
 * entry is a secret depends only on its path: so only folders whose change time moved are read
 * again, and a search of 30,000 files costs one stat per folder instead of a walk of every file.
 * The change time, not the modification time: a command can set a folder's modification time back
 * (utimes) after moving a secret into a new folder, but setting it moves the change time.
 */
async function scanTree(root: string): Promise<{ sensitive: string[]; config: string[]; code: string[] }> {
  const known = trees.get(root) ?? new Map<string, FolderState>();
  const seen = new Map<string, FolderState>();
  const found: string[] = [];
  const config: string[] = [];
  const code: string[] = [];
  const pending = ["."];
  let sinceTurn = 0;
  while (pending.length > 0) {
    const rel = pending.pop()!;
    const absolute = rel === "." ? root : path.join(root, rel);
    let st;
    try {
      st = lstatSync(absolute);
    } catch {
      continue;
    }
    if (!st.isDirectory()) continue;
    let state = known.get(rel);
    if (!state || state.ctimeMs !== st.ctimeMs || state.ino !== st.ino) {
      state = readFolder(absolute, rel, st.ctimeMs, st.ino);
      if (++sinceTurn >= FOLDERS_PER_TURN) {
        sinceTurn = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    if (Date.now() - st.ctimeMs > RACY_MS) seen.set(rel, state);
    found.push(...state.sensitive);
    config.push(...state.config);
    code.push(...state.code);
    pending.push(...state.folders);
  }
  trees.set(root, seen);
  return { sensitive: found, config, code };
}

/**
 * One search of `root` for what a confined command must not reach or leave, absolute: the files
 * that may hold secrets (as {@link sensitiveEntries} finds them, dependency folders aside); below
 * its top, tackle's configuration files and `.tackle` folders (tackle started in that folder takes
 * one and starts what it names); and the files that are code (workspace/code-kinds.ts), at the top
 * too, as kinds without a fixed name (`rules.mk`, `App.csproj`) are found nowhere else. The
 * workspace's own `.git` is left to the sandbox's view of it. A folder unchanged since the last
 * search costs one stat.
 */
export async function workspaceScan(root: string): Promise<{ sensitive: string[]; config: string[]; code: string[] }> {
  const { sensitive, config, code } = await scanTree(root);
  const absolute = (list: string[]) => list.map((rel) => path.join(root, rel));
  return {
    sensitive: absolute(sensitive.sort()),
    config: absolute(config.filter((rel) => rel.includes("/"))),
    code: absolute(code.filter((rel) => rel !== ".git")),
  };
}

function readFolder(absolute: string, rel: string, ctimeMs: number, ino: number): FolderState {
  const state: FolderState = { ctimeMs, ino, sensitive: [], config: [], code: [], folders: [] };
  let entries;
  try {
    entries = readdirSync(absolute, { withFileTypes: true });
  } catch {
    return state;
  }
  for (const entry of entries) {
    const child = rel === "." ? entry.name : `${rel}/${entry.name}`;
    // A link counts as configuration, or as code: tackle, git and the rest follow it to what it names.
    if (CONFIG_NAMES.has(entry.name)) state.config.push(child);
    if (executionSensitiveReason(child)) state.code.push(child);
    if (entry.isSymbolicLink()) continue;
    if (isSensitivePath(child)) state.sensitive.push(child);
    else if (entry.isDirectory() && entry.name !== "node_modules" && entry.name !== ".git") state.folders.push(child);
  }
  return state;
}

/** What a dependency tree held at the last search, by root, with the install it was made for. */
const packageScans = new Map<string, { key: string; found: string[] }>();

/** Files each package manager rewrites on every install: their times change when the tree does. */
const INSTALL_STAMPS = ["", ".package-lock.json", ".modules.yaml", ".yarn-integrity", ".yarn-state.yml"];

/**
 * The secrets anywhere in `root`'s node_modules (node_modules/app/config/.env too). A dependency
 * tree is large (a search costs about 13 µs a file), and it changes when a package manager
 * installs, which stamps its own files: so the search is made again only when those stamps change,
 * or when a secret found before is no longer where it was (a folder above it was renamed, and the
 * secret would be unhidden at its new path).
 */
async function packageSecrets(root: string): Promise<string[]> {
  const modules = path.join(root, "node_modules");
  const key = INSTALL_STAMPS.map((name) => {
    try {
      return String(statSync(path.join(modules, name)).mtimeMs);
    } catch {
      return "-";
    }
  }).join(":");
  if (key.startsWith("-")) return [];
  const known = packageScans.get(root);
  if (known?.key === key && known.found.every((rel) => lstatSync(path.join(root, rel), { throwIfNoEntry: false }))) return known.found;
  const { glob } = await import("tinyglobby");
  const found = await glob(
    SENSITIVE_PATTERNS.map((p) => `node_modules/${p}`),
    {
      cwd: root,
      dot: true,
      onlyFiles: false,
      followSymbolicLinks: false,
      expandDirectories: false,
      // As isSensitivePath judges names: .ENV and ID_RSA are as secret as .env and id_rsa.
      caseSensitiveMatch: false,
      ignore: ["**/.git/**"],
    },
  );
  packageScans.set(root, { key, found });
  return found;
}
