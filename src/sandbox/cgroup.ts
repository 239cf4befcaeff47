import { accessSync, constants, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { rmdir } from "node:fs/promises";
import path from "node:path";

/**
 * A pids cgroup per sandboxed run: the kernel's own bound on how many tasks the run may have.
 *
 * Why: RLIMIT_NPROC is ignored for real root (the kernel lets uid 0 in the initial namespace
 * past it), so a fork bomb run by tackle-as-root is only bounded by a cgroup. Where tackle can
 * create a cgroup (root with cgroup v1's pids hierarchy writable, or a delegated cgroup v2
 * subtree with the pids controller enabled) it does; elsewhere the caller falls back to
 * RLIMIT_NPROC (which holds for non-root users, counted per user namespace) and a watcher.
 */
export interface PidsCgroup {
  /** The cgroup folder; write a pid to its cgroup.procs to put the process in it. */
  readonly dir: string;
  /** Gives the cgroup up once its tasks are gone: kept for the next run, or removed. */
  remove(): Promise<void>;
}

let base: string | null | undefined;
let counter = 0;

/** The folder under which per-run pids cgroups can be created, found once; null when none. */
export function pidsCgroupBase(): string | null {
  if (base !== undefined) return base;
  base = findBase();
  return base;
}

/** Removes empty cgroups left by tackle processes that were killed before their exit hook ran. */
function removeStale(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /^tackle-sandbox-(\d+)-\d+$/.exec(name)?.[1];
    if (!pid || alive(Number(pid))) continue;
    try {
      rmdirSync(path.join(dir, name));
    } catch {
      // still has tasks, or not ours
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function findBase(): string | null {
  let lines: string[];
  try {
    lines = readFileSync("/proc/self/cgroup", "utf8").split("\n");
  } catch {
    return null;
  }
  const candidates: string[] = [];
  for (const line of lines) {
    const [, controllers, rel] = line.split(":");
    if (rel === undefined || controllers === undefined) continue;
    if (controllers.split(",").includes("pids")) {
      candidates.push(path.join("/sys/fs/cgroup/pids", rel), path.join("/sys/fs/cgroup", rel));
    } else if (controllers === "") {
      // cgroup v2: usable only where the pids controller is already delegated to children.
      for (const root of ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]) {
        const dir = path.join(root, rel);
        try {
          if (readFileSync(path.join(dir, "cgroup.subtree_control"), "utf8").split(/\s+/).includes("pids")) candidates.push(dir);
        } catch {
          // not there
        }
      }
    }
  }
  for (const dir of candidates) {
    try {
      accessSync(path.join(dir, "cgroup.procs"), constants.W_OK);
      // A real probe: permissions on cgroupfs say little until you try.
      const probe = path.join(dir, `tackle-probe-${process.pid}`);
      mkdirSync(probe);
      const ok = hasPidsMax(probe);
      rmdirSync(probe);
      if (ok) {
        removeStale(dir);
        return dir;
      }
    } catch {
      // not usable
    }
  }
  return null;
}

function hasPidsMax(dir: string): boolean {
  try {
    readFileSync(path.join(dir, "pids.max"), "utf8");
    return true;
  } catch {
    return false;
  }
}

/**
 * Idle cgroups kept for reuse: creating and removing a cgroup costs the kernel far more than a
 * run of `true` (cgroup v1 rmdir waits for RCU), so each is made once and handed out again when
 * it is empty. Whatever is idle is removed when the process exits.
 */
const idle: string[] = [];
const MAX_IDLE = 4;
let exitHook = false;

function isEmpty(dir: string): boolean {
  try {
    return readFileSync(path.join(dir, "cgroup.procs"), "utf8").trim() === "";
  } catch {
    return false;
  }
}

/** A pids cgroup allowing `maxTasks` tasks (empty, new or reused), or undefined where none can be made. */
export function createPidsCgroup(maxTasks: number): PidsCgroup | undefined {
  const root = pidsCgroupBase();
  if (!root) return undefined;
  let dir: string | undefined;
  while (idle.length && !dir) {
    const candidate = idle.pop()!;
    if (isEmpty(candidate)) dir = candidate;
    else void removeDir(candidate);
  }
  try {
    if (!dir) {
      dir = path.join(root, `tackle-sandbox-${process.pid}-${++counter}`);
      mkdirSync(dir);
      if (!exitHook) {
        exitHook = true;
        process.once("exit", () => {
          for (const d of idle.splice(0)) {
            try {
              rmdirSync(d);
            } catch {
              // still busy: the kernel drops it once empty only if asked again; nothing more to do
            }
          }
        });
      }
    }
    writeFileSync(path.join(dir, "pids.max"), String(maxTasks));
  } catch {
    if (dir) void removeDir(dir);
    return undefined;
  }
  const own = dir;
  return {
    dir: own,
    async remove() {
      // Back to the pool once its tasks are gone; otherwise removed when they are.
      for (let i = 0; i < 50; i++) {
        if (isEmpty(own)) {
          if (idle.length < MAX_IDLE) {
            idle.push(own);
            return;
          }
          break;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      await removeDir(own);
    },
  };
}

async function removeDir(dir: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    try {
      await rmdir(dir);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      // EBUSY: killed tasks are still being reaped.
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
