import type { JsonSchemaStore } from "../core/schema.js";
import { codeCacheSetting, readBuildFile, readCacheFile, writeBuildFile, writeCacheFile } from "../workspace/own-folders.js";

/** Past this, the file is begun afresh (tackle's own tools hold about 40 schemas, 20 KB). */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const MAX_ENTRIES = 2_000;
const FILE = "json-schemas.json";

/** One file of kept schemas: its entries (none when missing or unsound), and how to replace it. */
interface SchemaFile {
  read(): Buffer | undefined;
  write(data: string): void;
}

const userFile: SchemaFile = {
  read: () => readCacheFile(FILE, MAX_FILE_BYTES),
  write: (data) => writeCacheFile(FILE, data),
};
const buildFile: SchemaFile = {
  read: () => readBuildFile(FILE, MAX_FILE_BYTES),
  write: (data) => writeBuildFile(FILE, data),
};

/**
 * The tools' JSON Schemas as converted by earlier runs, under each schema's fingerprint: kept in
 * tackle's private cache folder (where no tool reaches) and written back when a run converted new
 * ones; a schema not there may come from those the build kept beside the command, for first runs
 * (see src/cli/code-cache.ts). What is read is only ever used for a schema with the very
 * fingerprint it was kept under. With `TACKLE_CODE_CACHE=0` every schema is converted as it is
 * needed; see {@link codeCacheSetting} for the other settings.
 */
export function fileJsonSchemaStore(): JsonSchemaStore | undefined {
  const setting = codeCacheSetting();
  if (setting === "off") return undefined;
  const own = setting === "build" ? buildFile : userFile;
  let entries: Map<string, string> | undefined;
  let built: Map<string, string> | undefined;
  let added = false;
  const load = () => (entries ??= parsed(own.read()));
  const save = () => {
    if (!added || !entries) return;
    try {
      const kept = entries.size > MAX_ENTRIES ? [...entries].slice(-MAX_ENTRIES) : [...entries];
      own.write(JSON.stringify(Object.fromEntries(kept)));
    } catch {
      // A cache is an optimisation: a full disk or a read-only home must not fail the command.
    }
  };
  process.once("exit", save);
  return {
    get: (key) => load().get(key) ?? (setting === "on" ? (built ??= parsed(buildFile.read())).get(key) : undefined),
    set: (key, json) => {
      load().set(key, json);
      added = true;
    },
  };
}

/** The entries of a file as tackle writes it; none from anything else. */
function parsed(data: Buffer | undefined): Map<string, string> {
  const entries = new Map<string, string>();
  if (!data) return entries;
  try {
    const json = JSON.parse(data.toString("utf8")) as unknown;
    if (json && typeof json === "object" && !Array.isArray(json)) {
      for (const [key, value] of Object.entries(json)) if (typeof value === "string") entries.set(key, value);
    }
  } catch {
    // not what tackle writes: begun afresh
  }
  return entries;
}
