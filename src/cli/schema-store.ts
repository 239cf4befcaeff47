import path from "node:path";
import type { JsonSchemaStore } from "../core/schema.js";
import { cacheTurnedOff, ownFolder, readOwnFile, replaceOwnFile, tackleCacheDir } from "../workspace/own-folders.js";

/** Past this, the file is begun afresh (tackle's own tools hold about 40 schemas, 20 KB). */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const MAX_ENTRIES = 2_000;
const FILE = "json-schemas.json";

/**
 * The tools' JSON Schemas as converted by earlier runs, kept in tackle's private cache folder (where
 * no tool reaches) under each schema's fingerprint, and written back when a run converted new ones.
 * What is read is only ever used for a schema with the very fingerprint it was kept under. Without
 * such a folder, or with `TACKLE_CODE_CACHE=0`, every schema is converted as it is needed.
 */
export function fileJsonSchemaStore(): JsonSchemaStore | undefined {
  if (cacheTurnedOff()) return undefined;
  const dir = tackleCacheDir();
  const file = path.join(dir, FILE);
  let entries: Map<string, string> | undefined;
  let added = false;
  const load = (): Map<string, string> => {
    if (entries) return entries;
    entries = new Map();
    const data = ownFolder(dir) ? readOwnFile(file, MAX_FILE_BYTES) : undefined;
    if (data) {
      try {
        const parsed = JSON.parse(data.toString("utf8")) as unknown;
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
          for (const [key, json] of Object.entries(parsed)) if (typeof json === "string") entries.set(key, json);
        }
      } catch {
        // not what tackle writes: begun afresh
      }
    }
    return entries;
  };
  const save = () => {
    if (!added || !entries || !ownFolder(dir)) return;
    try {
      const kept = entries.size > MAX_ENTRIES ? [...entries].slice(-MAX_ENTRIES) : [...entries];
      replaceOwnFile(file, JSON.stringify(Object.fromEntries(kept)));
    } catch {
      // A cache is an optimisation: a full disk or a read-only home must not fail the command.
    }
  };
  process.once("exit", save);
  return {
    get: (key) => load().get(key),
    set: (key, json) => {
      load().set(key, json);
      added = true;
    },
  };
}
