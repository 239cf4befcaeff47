import { createHash } from "node:crypto";
import { lstatSync, readdirSync, statSync, type Dirent } from "node:fs";
import { chmod, copyFile, lstat, mkdir, mkdtemp, readdir, readlink, rename, stat, symlink, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { tackleCacheDir } from "../workspace/own-folders.js";
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

/** A folder unchanged for this long cannot change without its times moving (far above a clock tick). */
const SETTLED_MS = 2_000;
/** A shared /etc not used for this long (by any process) is removed by the next one that builds one. */
const UNUSED_ETC_MS = 7 * 24 * 3600_000;

/**
 * Works out, once per process and without blocking the event loop, what {@link systemArgs}
 * returns. Sandboxed runs await it first (the bubblewrap probe does), so nothing pays for it
 * before the first sandboxed call.
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
    // One bind for all of /etc: each mount costs bubblewrap time, and the copy holds exactly the
    // files chosen (world-readable ones only) and nothing else.
    args.push("--ro-bind", await sharedEtc(), "/etc");
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

/** The process's private sandbox folder (copy-on-write layers), made on first use. */
export function supportDir(): Promise<string> {
  support ??= makeSupportDir();
  support.catch(() => (support = undefined));
  return support;
}

async function makeSupportDir(): Promise<string> {
  await removeStaleSupportDirs();
  const dir = await mkdtemp(path.join(os.tmpdir(), `tackle-sandbox-${process.pid}-`));
  process.once("exit", () => removeTree(dir));
  return dir;
}

/**
 * The sandbox's /etc: copies of {@link ETC_FILES} that everyone may read (symlinks inside copied
 * folders kept as they are, so certificate links into /usr still resolve), a synthesised passwd
 * and group, and an empty resolv.conf that network-enabled runs mount the real one over.
 *
 * Copying several hundred files costs far more than a call, so the copy is made once and shared by
 * every process of the user, in tackle's cache folder (which no tool and no sandbox reaches), named
 * after a fingerprint of what it copies: a file changed, added or removed in the host's /etc makes
 * a new one.
 */
async function sharedEtc(): Promise<string> {
  const uid = process.getuid?.() ?? 1000;
  const gid = process.getgid?.() ?? 1000;
  const base = path.join(tackleCacheDir(), "sandbox");
  const target = path.join(base, `etc-${etcFingerprint(uid, gid)}`);
  try {
    const st = await lstat(target);
    if (st.isDirectory() && st.uid === uid) {
      // Marks it in use, so cleaning up after a change never takes a copy someone still binds.
      await utimes(target, new Date(), new Date()).catch(() => undefined);
      return target;
    }
  } catch {
    // not made yet
  }
  await mkdir(base, { recursive: true, mode: 0o700 });
  await chmod(base, 0o700);
  const building = await mkdtemp(path.join(base, ".building-"));
  try {
    await chmod(building, 0o755);
    await Promise.all(ETC_FILES.map((source) => copyPublic(source, path.join(building, path.basename(source)))));
    // Inside, the code runs as the same uid as tackle (the user namespace maps it to itself).
    const users =
      uid === 0
        ? [`root:x:0:0:root:/tmp:/bin/sh`]
        : [`root:x:0:0:root:/root:/usr/sbin/nologin`, `sandbox:x:${uid}:${gid}:sandbox:/tmp:/bin/sh`];
    users.push("nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin");
    const groups = gid === 0 ? ["root:x:0:"] : ["root:x:0:", `sandbox:x:${gid}:`];
    groups.push("nogroup:x:65534:");
    await writeFile(path.join(building, "passwd"), users.join("\n") + "\n", { mode: 0o644 });
    await writeFile(path.join(building, "group"), groups.join("\n") + "\n", { mode: 0o644 });
    await writeFile(path.join(building, "resolv.conf"), "", { mode: 0o644 });
    try {
      await rename(building, target);
    } catch (err) {
      // Another process finished the same copy first: theirs is used.
      if (!["ENOTEMPTY", "EEXIST"].includes((err as NodeJS.ErrnoException).code ?? "")) throw err;
      removeTree(building);
    }
  } catch (err) {
    removeTree(building);
    throw err;
  }
  await removeUnusedEtcs(base, target);
  return target;
}

/**
 * What the copy depends on: each entry's path, type, mode, size, inode and times, and the user the
 * passwd file is made for. Symbolic links inside folders are copied as links, and a link cannot
 * change in place: making, removing, renaming or replacing one changes its folder's modification
 * and change times, which are part of the fingerprint. So they are named from the folder's listing
 * without an lstat each (/etc/alternatives and /etc/ssl/certs are almost all links: about 700 of 735
 * entries on Debian, a few milliseconds of every process's first sandboxed call). File times move
 * in steps of a clock tick, so a folder changed in the last {@link SETTLED_MS} could change again
 * unseen: its links are read one by one.
 */
export function etcFingerprint(uid: number, gid: number, sources: readonly string[] = ETC_FILES): string {
  const hash = createHash("sha256").update(`v2 ${uid} ${gid}\n`);
  const walk = (p: string, top: boolean) => {
    let st;
    try {
      st = top ? statSync(p) : lstatSync(p);
    } catch {
      hash.update(`- ${p}\n`);
      return;
    }
    hash.update(`${p} ${st.mode} ${st.size} ${st.ino} ${st.mtimeMs} ${st.ctimeMs}\n`);
    if (st.isDirectory() && (st.mode & 0o005) === 0o005) {
      let entries: Dirent[] = [];
      try {
        entries = readdirSync(p, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      } catch {
        // unreadable: copied as empty, and so fingerprinted
      }
      const settled = Date.now() - st.ctimeMs > SETTLED_MS;
      for (const entry of entries) {
        // p is absolute and normal, and a name holds no slash: the path as path.join would make it, without normalising it again.
        const child = `${p}/${entry.name}`;
        if (settled && entry.isSymbolicLink()) hash.update(`${child} link\n`);
        else walk(child, false);
      }
    }
  };
  for (const source of sources) walk(source, true);
  return hash.digest("hex").slice(0, 24);
}

/** Removes copies for an earlier state of /etc that no process has used for a week. */
async function removeUnusedEtcs(base: string, keep: string): Promise<void> {
  const names = await readdir(base).catch(() => [] as string[]);
  for (const name of names) {
    const p = path.join(base, name);
    if (p === keep || !/^(etc-[0-9a-f]+|\.building-\w+)$/.test(name)) continue;
    try {
      if (Date.now() - (await lstat(p)).mtimeMs > UNUSED_ETC_MS) removeTree(p);
    } catch {
      // gone already
    }
  }
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
