import type { Location, LocationLink } from "vscode-languageserver-protocol/node";
import { readResolvedSync } from "../../workspace/no-follow.js";
import { isSensitivePath } from "../../workspace/sensitive.js";
import type { Workspace } from "../../workspace/workspace.js";

/**
 * Reads each file at most once per answer, so a list of locations can quote their lines. Only a
 * file the model could read is quoted: a server (which runs what the workspace gives it, plugins
 * included) may name any file on the machine, and tackle reads it outside the server's sandbox.
 */
export function lineReader(workspace: Workspace): (file: string, line: number) => string | undefined {
  const cache = new Map<string, string[]>();
  return (file, line) => {
    let lines = cache.get(file);
    if (!lines) {
      try {
        // Resolved as a tool's path is: inside the workspace's roots, out of tackle's own folders.
        const resolved = workspace.resolveSync(file);
        lines = isSensitivePath(resolved.relative) ? [] : readResolvedSync(resolved.absolute).toString("utf8").split("\n");
      } catch {
        lines = [];
      }
      cache.set(file, lines);
    }
    return lines[line];
  };
}

/** Servers answer with a location, a list, or links; the tools show plain locations. */
export function toLocations(result: Location | Location[] | LocationLink[] | null): Location[] {
  if (!result) return [];
  const list = Array.isArray(result) ? result : [result];
  return list.map((l) => ("targetUri" in l ? { uri: l.targetUri, range: l.targetSelectionRange } : l));
}
