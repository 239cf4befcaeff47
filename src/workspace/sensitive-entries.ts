import { lstatSync } from "node:fs";
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
  if (options.packages) {
    // Dependency trees are too large to search whole on every run; the packages' own top folders
    // (node_modules/app/.env, node_modules/@scope/app/.env) are where a stray secret sits.
    const tops = ["node_modules/*/", "node_modules/@*/*/"].flatMap((top) => SENSITIVE_PATTERNS.map((p) => top + p.replace(/^\*\*\//, "")));
    found.push(...(await glob(tops, { ...common, deep: 4 })));
  }
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
