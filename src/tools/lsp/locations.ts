import { readFileSync } from "node:fs";
import type { Location, LocationLink } from "vscode-languageserver-protocol/node";

/** Reads each file at most once per answer, so a list of locations can quote their lines. */
export function lineReader(): (file: string, line: number) => string | undefined {
  const cache = new Map<string, string[]>();
  return (file, line) => {
    let lines = cache.get(file);
    if (!lines) {
      try {
        lines = readFileSync(file, "utf8").split("\n");
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
