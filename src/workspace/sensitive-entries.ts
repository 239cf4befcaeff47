import { lstatSync, statSync } from "node:fs";
import path from "node:path";
import { isSensitivePath, SENSITIVE_PATTERNS } from "./sensitive.js";

/** Most entries hidden from one sandbox; a workspace with more is refused rather than half hidden. */
export const MAX_SENSITIVE_ENTRIES = 1000;

/**
 * The files and folders in a workspace that may hold secrets (`.env`, `.ssh/`, keys), absolute,
 * topmost only (`.aws`, not `.aws/credentials` too), never a symlink (what it points at is found
 * by its own name, or lies outside). Dependency folders and `.git` are not searched.
 */
export async function sensitiveEntries(root: string, options: { packages?: boolean } = {}): Promise<string[]> {
  const { glob } = await import("tinyglobby");
  const common = {
    cwd: root,
    dot: true,
    onlyFiles: false,
    followSymbolicLinks: false,
    expandDirectories: false,
    // As isSensitivePath judges names: .ENV and ID_RSA are as secret as .env and id_rsa.
    caseSensitiveMatch: false,
  };
  const found = await glob(SENSITIVE_PATTERNS as string[], { ...common, ignore: ["**/node_modules/**", "**/.git/**"] });
  if (options.packages) found.push(...(await packageSecrets(root, common)));
  const entries: string[] = [];
  for (const rel of found.map((f) => f.replace(/\/$/, "")).sort((a, b) => a.length - b.length)) {
    if (!isSensitivePath(rel) || entries.some((e) => rel.startsWith(`${e}/`))) continue;
    const absolute = path.join(root, rel);
    try {
      if (lstatSync(absolute).isSymbolicLink()) continue;
    } catch {
      continue;
    }
    entries.push(rel);
  }
  return entries.map((rel) => path.join(root, rel));
}

/** What a dependency tree held at the last search, by root, with the install it was made for. */
const packageScans = new Map<string, { key: string; found: string[] }>();

/** Files each package manager rewrites on every install: their times change when the tree does. */
const INSTALL_STAMPS = ["", ".package-lock.json", ".modules.yaml", ".yarn-integrity", ".yarn-state.yml"];

/**
 * The secrets anywhere in `root`'s node_modules (node_modules/app/config/.env too). A dependency
 * tree is large (a search costs about 13 µs a file), and it changes when a package manager
 * installs, which stamps its own files: so the search is made again only when those stamps change.
 */
async function packageSecrets(root: string, common: Record<string, unknown>): Promise<string[]> {
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
  if (known?.key === key) return known.found;
  const { glob } = await import("tinyglobby");
  const found = await glob(
    SENSITIVE_PATTERNS.map((p) => `node_modules/${p}`),
    { ...common, ignore: ["**/.git/**"] },
  );
  packageScans.set(root, { key, found });
  return found;
}
