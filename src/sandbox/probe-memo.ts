import { createHash } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { ownFolder, readOwnFile, replaceOwnFile, tackleCacheDir } from "../workspace/own-folders.js";

/*
 * A bubblewrap probe that worked, remembered for the processes that follow: each `tackle call
 * shell` is a process of its own, and starting a sandbox only to see that one starts cost about a
 * tenth of a first shell call (two more programs started, one of them a sandbox).
 *
 * Only success is remembered, and only for what it was found under: the same bwrap file, the same
 * boot, the same namespaces, capabilities and seccomp state of this process, the same settings that
 * allow user namespaces, the same user and the same sandbox command line. A container sharing the
 * home folder, a changed sysctl or an upgraded bwrap each find nothing and probe afresh. What none
 * of that covers (an AppArmor profile loaded since) lasts at most {@link REMEMBERED_MS}; a sandbox
 * that then fails to start says so in the call's answer, and is never replaced by an unconfined run.
 * The entries live in tackle's own cache folder, which no tool and no sandbox reaches; the bwrap
 * run is always the one found on this run's PATH, never a path read back from the folder.
 */

/** How long a remembered probe is trusted. */
export const REMEMBERED_MS = 15 * 60_000;

/** The name of a remembered probe's file in the folder. */
const ENTRY = /^probe-[0-9a-f]+\.json$/;

/** What a successful probe found. */
export interface RememberedProbe {
  version: string;
  userns: boolean;
}

/** The kernel settings that decide whether an unprivileged process may make a user namespace. */
const USERNS_SETTINGS = [
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
];

function folder(): string | undefined {
  // The folder above too: whoever may write there could swap this one.
  const dir = path.join(tackleCacheDir(), "sandbox");
  return ownFolder(tackleCacheDir()) && ownFolder(dir) ? dir : undefined;
}

function readOr(file: string): string {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return "-";
  }
}

/**
 * The name of what a probe depends on, or undefined where it cannot be told (no /proc): then
 * nothing is remembered.
 */
export function probeKey(bwrap: string, args: readonly string[], seccomp: Buffer | undefined): string | undefined {
  try {
    const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const st = statSync(bwrap, { bigint: true });
    const status = readFileSync("/proc/self/status", "utf8")
      .split("\n")
      .filter((line) => /^(Cap|Seccomp|NoNewPrivs)/.test(line));
    const parts = [
      "v1",
      bootId,
      bwrap,
      [st.dev, st.ino, st.size, st.mode, st.uid, st.mtimeNs, st.ctimeNs].join(":"),
      `${process.getuid?.() ?? "-"}:${process.getgid?.() ?? "-"}`,
      ...["mnt", "user", "pid", "net", "cgroup"].map((ns) => readlinkSync(`/proc/self/ns/${ns}`)),
      ...status,
      ...USERNS_SETTINGS.map(readOr),
      seccomp ? createHash("sha256").update(seccomp).digest("hex") : "-",
      ...args,
    ];
    return createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 32);
  } catch {
    return undefined;
  }
}

/** A probe remembered under `key` within the last {@link REMEMBERED_MS}, if any. */
export function recalledProbe(key: string): RememberedProbe | undefined {
  const dir = folder();
  if (!dir) return undefined;
  const data = readOwnFile(path.join(dir, `probe-${key}.json`), 4096);
  if (!data) return undefined;
  try {
    const entry = JSON.parse(data.toString("utf8")) as Record<string, unknown>;
    const age = Date.now() - Number(entry["at"]);
    if (!(age >= 0 && age < REMEMBERED_MS)) return undefined;
    if (typeof entry["version"] !== "string" || typeof entry["userns"] !== "boolean") return undefined;
    return { version: entry["version"], userns: entry["userns"] };
  } catch {
    return undefined;
  }
}

/** Remembers a successful probe under `key`, and drops entries too old to be used. */
export function rememberProbe(key: string, found: RememberedProbe): void {
  const dir = folder();
  if (!dir) return;
  const file = path.join(dir, `probe-${key}.json`);
  try {
    replaceOwnFile(file, JSON.stringify({ ...found, at: Date.now() }));
    for (const name of readdirSync(dir)) {
      if (!ENTRY.test(name) || name === path.basename(file)) continue;
      const other = path.join(dir, name);
      if (Date.now() - statSync(other).mtimeMs > REMEMBERED_MS) rmSync(other, { force: true });
    }
  } catch {
    // Remembering is an optimisation: a full disk or a read-only home must not fail the probe.
  }
}

/** Forgets every remembered probe of this user. */
export function forgetProbes(): void {
  const dir = folder();
  if (!dir) return;
  try {
    for (const name of readdirSync(dir)) if (ENTRY.test(name)) rmSync(path.join(dir, name), { force: true });
  } catch {
    // nothing remembered
  }
}
