import { readdirSync, readFileSync } from "node:fs";

/** Processes of this machine whose command line contains `marker` (read from /proc). */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker)) found.push(Number(name));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}
