import { constants } from "node:os";

/** A child process tree tackle must not leave behind. */
export interface TrackedProcess {
  /** Kills the whole tree now, synchronously (signal handlers and `exit` cannot wait). */
  killSync(): void;
}

const live = new Set<TrackedProcess>();
const SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
let installed = false;
let shuttingDown = false;
/** How long other signal listeners get to finish (flush logs...) before tackle exits anyway. */
const EXIT_GRACE_MS = 3_000;

function killAll(): void {
  for (const p of live) {
    try {
      p.killSync();
    } catch {
      // best effort: the others still get killed
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  shuttingDown = true;
  killAll();
  const code = 128 + (constants.signals[signal] ?? 15);
  // Alone, we restore the default meaning of the signal (exit). When the program has its own
  // handler it decides, but tackle still exits if nothing else makes it.
  if (process.listenerCount(signal) <= 1) process.exit(code);
  setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
}

function onExit(): void {
  killAll();
}

function install(): void {
  if (installed) return;
  installed = true;
  for (const s of SIGNALS) process.on(s, onSignal);
  process.on("exit", onExit);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  for (const s of SIGNALS) process.off(s, onSignal);
  process.off("exit", onExit);
}

/**
 * Tracks a process tree until the returned function is called. While anything is tracked,
 * SIGINT / SIGTERM / SIGHUP and process exit kill every tracked tree first, so MCP servers
 * (and whatever `npx` or `sh -c` started under them) never outlive tackle.
 */
export function trackProcess(p: TrackedProcess): () => void {
  live.add(p);
  install();
  return () => {
    live.delete(p);
    if (live.size === 0) uninstall();
  };
}

/** True once a terminating signal arrived: nothing should be respawned any more. */
export function isShuttingDown(): boolean {
  return shuttingDown;
}

/** How many trees are tracked (tests). */
export function trackedCount(): number {
  return live.size;
}
