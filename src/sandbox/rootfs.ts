import { chmod, copyFile, lstat, mkdir, mkdtemp, readdir, readlink, stat, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { removeTree } from "./remove-tree.js";

/*
 * What the sandbox sees of the system: /usr read-only, the top-level system folders as the host
 * has them (symlinks into /usr, or read-only binds), and an /etc of its own.
 */

/** /etc files most programs need, none of them secret (only world-readable entries are copied). */
const ETC_FILES = [
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/alternatives",
  "/etc/localtime",
  "/etc/timezone",
  "/etc/nsswitch.conf",
  "/etc/hosts",
  "/etc/host.conf",
  "/etc/gai.conf",
  "/etc/protocols",
  "/etc/services",
  "/etc/mime.types",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
  "/etc/crypto-policies",
  "/etc/debian_version",
  "/etc/os-release",
  "/etc/lsb-release",
  "/etc/inputrc",
  "/etc/magic",
];
/** The top-level system folders; on merged-/usr systems they are symlinks into /usr. */
const SYSTEM_DIRS = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
let systemArgsCache: string[] | undefined;
let preparing: Promise<string[]> | undefined;
let support: Promise<string> | undefined;

/**
 * Works out, once per process and without blocking the event loop, what {@link systemArgs}
 * returns: the sandbox's /etc is a copy of several hundred files. Sandboxed runs await it first
 * (the bubblewrap probe does), so nothing pays for it before the first sandboxed call.
 */
export function prepareSystem(): Promise<string[]> {
  preparing ??= (async () => {
    const args = ["--ro-bind", "/usr", "/usr"];
    for (const dir of SYSTEM_DIRS) {
      try {
        const st = await lstat(dir);
        if (st.isSymbolicLink()) args.push("--symlink", await readlink(dir), dir);
        else if (st.isDirectory()) args.push("--ro-bind", dir, dir);
      } catch {
        // not on this system
      }
    }
    // One bind for all of /etc: each mount costs bubblewrap time, and a copy made once per
    // process holds exactly the files chosen (world-readable ones only) and nothing else.
    args.push("--ro-bind", path.join(await supportDir(), "etc"), "/etc");
    return (systemArgsCache = args);
  })();
  preparing.catch(() => (preparing = undefined));
  return preparing;
}

/** /usr, the top-level system folders and the sandbox's own /etc, once {@link prepareSystem} is done. */
export function systemArgs(): string[] {
  if (!systemArgsCache)
    throw new Error("The sandbox's file system is not prepared yet: await prepareSystem() (or sandboxAvailable()) first.");
  return systemArgsCache;
}

/** The process's private sandbox folder (its /etc, copy-on-write layers), made on first use. */
export function supportDir(): Promise<string> {
  support ??= makeSupportDir();
  support.catch(() => (support = undefined));
  return support;
}

/**
 * A private folder holding the sandbox's /etc, made once per process: copies of {@link ETC_FILES}
 * that everyone may read (symlinks inside copied folders kept as they are, so certificate links
 * into /usr still resolve), a synthesised passwd and group, and an empty resolv.conf that
 * network-enabled runs mount the real one over.
 */
async function makeSupportDir(): Promise<string> {
  await removeStaleSupportDirs();
  const dir = await mkdtemp(path.join(os.tmpdir(), `tackle-sandbox-${process.pid}-`));
  process.once("exit", () => removeTree(dir));
  const etc = path.join(dir, "etc");
  await mkdir(etc, { mode: 0o755 });
  await Promise.all(ETC_FILES.map((source) => copyPublic(source, path.join(etc, path.basename(source)))));
  const uid = process.getuid?.() ?? 1000;
  const gid = process.getgid?.() ?? 1000;
  // Inside, the code runs as the same uid as tackle (the user namespace maps it to itself).
  const users =
    uid === 0
      ? [`root:x:0:0:root:/tmp:/bin/sh`]
      : [`root:x:0:0:root:/root:/usr/sbin/nologin`, `sandbox:x:${uid}:${gid}:sandbox:/tmp:/bin/sh`];
  users.push("nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin");
  const groups = gid === 0 ? ["root:x:0:"] : ["root:x:0:", `sandbox:x:${gid}:`];
  groups.push("nogroup:x:65534:");
  await writeFile(path.join(etc, "passwd"), users.join("\n") + "\n", { mode: 0o644 });
  await writeFile(path.join(etc, "group"), groups.join("\n") + "\n", { mode: 0o644 });
  await writeFile(path.join(etc, "resolv.conf"), "", { mode: 0o644 });
  return dir;
}

/**
 * Removes support folders of tackle processes that ended without running their exit hook
 * (killed by a signal, as test runners do to their workers): ours, named after a dead pid.
 */
async function removeStaleSupportDirs(): Promise<void> {
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = await readdir(os.tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /^tackle-sandbox-(\d+)-[A-Za-z0-9]{6}$/.exec(name)?.[1];
    if (!pid || isAlive(Number(pid))) continue;
    const p = path.join(os.tmpdir(), name);
    try {
      if (uid !== undefined && (await lstat(p)).uid !== uid) continue;
      removeTree(p);
    } catch {
      // someone else's, or gone already
    }
  }
}

/** Whether a process exists (EPERM means it does, but is not ours). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Copies a world-readable file, or a folder's world-readable entries, keeping inner symlinks. */
async function copyPublic(source: string, target: string, top = true): Promise<void> {
  let st;
  try {
    st = top ? await stat(source) : await lstat(source);
  } catch {
    return;
  }
  if (st.isSymbolicLink()) {
    await symlink(await readlink(source), target);
  } else if (st.isDirectory()) {
    if ((st.mode & 0o005) !== 0o005) return;
    await mkdir(target, { mode: 0o755 });
    const names = await readdir(source).catch(() => []);
    await Promise.all(names.map((name) => copyPublic(path.join(source, name), path.join(target, name), false)));
  } else if (st.isFile() && (st.mode & 0o004) !== 0) {
    await copyFile(source, target);
    await chmod(target, 0o644);
  }
}
