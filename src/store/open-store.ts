import path from "node:path";
import { deskFolder, FileStore } from "./file-store.js";
import { realPlace } from "../workspace/own-folders.js";
import { pathBelow } from "../workspace/path-below.js";
import type { Store } from "./store.js";

/** Where the store is, as given: `file` (the default), `file:/folder`, or `postgres://user:password@host:port/database`. */
export type StoreAddress = string;

/** The store's address from what was given, the environment (`TACKLE_STORE`) or configuration; files by default. */
export function storeAddress(given: string | undefined, configured: string | { url: string } | undefined, env = process.env): StoreAddress {
  const configuredUrl = typeof configured === "string" ? configured : configured?.url;
  return given || env["TACKLE_STORE"] || configuredUrl || "file";
}

/**
 * Opens the store at `address` for `workspace`. On PostgreSQL, `namespace` (default: the
 * workspace's path) keeps one workspace's desk apart from another's in the same database.
 * `reachable` are the folders tools reach (the workspace and the roots the configuration adds): a
 * store folder in one is refused, as a command there could write the answers and rules that
 * approve its own calls.
 */
export async function openStore(
  address: StoreAddress,
  workspace: string,
  namespace?: string,
  reachable: readonly string[] = [workspace],
): Promise<Store> {
  if (address === "file") return new FileStore(deskFolder(workspace));
  if (address.startsWith("file:")) {
    const folder = address.startsWith("file://") ? new URL(address).pathname : address.slice("file:".length);
    if (!path.isAbsolute(folder)) throw new Error(`The store folder must be an absolute path: file:/path/to/folder, not ${address}.`);
    const place = realPlace(path.resolve(folder));
    const within = reachable.find((dir) => pathBelow(realPlace(path.resolve(dir)), place) !== undefined);
    if (within !== undefined) {
      throw new Error(
        `The store folder ${folder} is inside ${within}, which tools and commands can write: it would hold the answers and rules that approve their calls. ` +
          "Put it outside the workspace (or leave the default, file).",
      );
    }
    return new FileStore(folder);
  }
  if (/^postgres(ql)?:\/\//i.test(address)) {
    // The client library loads only for a PostgreSQL store.
    const { openPostgresStore } = await import("./postgres-store.js");
    return openPostgresStore({ url: address, namespace: namespace ?? path.resolve(workspace) });
  }
  throw new Error(
    `Unknown store "${address.replace(/:\/\/.*$/, "://...")}": use file (the default), file:/path/to/folder, or postgres://user:password@host:port/database.`,
  );
}
