import { readdir, readFile } from "node:fs/promises";

/** Every descendant of `pid`, found through /proc (Linux); children that left the group included. */
export async function descendantsOf(pid: number): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  await Promise.all(
    entries.map(async (name) => {
      if (!/^\d+$/.test(name)) return;
      try {
        const stat = await readFile(`/proc/${name}/stat`, "utf8");
        // The command name may contain spaces and parentheses; fields resume after the last ")".
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        const list = children.get(ppid) ?? [];
        list.push(Number(name));
        children.set(ppid, list);
      } catch {
        // the process ended while we looked
      }
    }),
  );
  const out: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const next = queue.shift()!;
    for (const c of children.get(next) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

/**
 * Kills a process, its process group and every descendant. Spawn children with `detached: true`
 * so each has its own group; descendants that started their own session are found through /proc.
 */
export async function killProcessTree(pid: number, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  const descendants = await descendantsOf(pid);
  for (const target of [-pid, pid, ...descendants]) {
    try {
      process.kill(target, signal);
    } catch {
      // already gone, or not ours
    }
  }
}

/** Synchronous best effort for `process.on("exit")`, where nothing async can run. */
export function killProcessGroupSync(pid: number, signal: NodeJS.Signals = "SIGKILL"): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
    } catch {
      // already gone
    }
  }
}
