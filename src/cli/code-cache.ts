import { isAscii } from "node:buffer";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync, type BigIntStats } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import vm from "node:vm";
import {
  codeCacheSetting,
  ownFolder,
  readBuildFile,
  readOwnFile,
  replaceOwnFile,
  tackleCacheDir,
  writeBuildFile,
} from "../workspace/own-folders.js";
import { STARTED_UP } from "../process/started-up.js";

/**
 * How a bundle begins: it is one function expression, Node's own CommonJS wrapper around the code,
 * so it sees exports, require, module, __filename and __dirname, and one more: the launcher's
 * import(), which code compiled by node:vm lacks. The build writes it (scripts/bundle-cli.mjs), so
 * a start compiles the file's text as it was read; wrapped here, V8 first copied all 2.5 MB of it
 * into one more string, about 600 fresh pages of memory.
 */
export const BUNDLE_HEAD = "(function (exports, require, module, __filename, __dirname, __tackleImport) { ";

/** Commands whose runs share what they compile; anything else is cached as "other". */
const COMMANDS = new Set(["call", "tools", "mcp", "serve", "init", "rules", "completion"]);
/** A cache entry larger than this is not one tackle wrote. */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024;
const MAC_BYTES = 32;
/** When a run that is still going writes its cache, if it has not said its start-up is over. */
const SAVED_AFTER_MS = 10_000;
/** How long another build's cache entry is kept after it was written. */
const OTHER_BUILDS_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Runs a bundle (a file that begins with {@link BUNDLE_HEAD}) with V8's code cache, so a cold start
 * skips most parsing and compiling (the work that dominated `tackle mcp`'s start-up). Two kinds of cache, tried in turn:
 *
 * - The user's own, in a private folder: the first run of each command writes what it compiled
 *   when it exits; later runs hand that to V8. Compiled code read from the cache runs as this user,
 *   and V8 checks little (it accepts an entry compiled from any source of the same length), so an
 *   entry is used only when tackle can tell it wrote it for this very source: each starts with an
 *   HMAC, under a key kept in the folder, of the source file's identity and the entry. The identity
 *   (device, inode, size, and modification and change times to the nanosecond) moves with any
 *   change to the file, the change time even when the modification time is set back; hashing the
 *   4 MB source instead cost 9 ms of every start. Anything else there, a FIFO, a link, a file of
 *   another user or one others may write, is ignored. The folder is `$XDG_CACHE_HOME/tackle` (or
 *   `~/.cache/tackle`), owned by this user and writable by nobody else.
 * - The build's, in `code-cache` beside the file (written by scripts/warm-code-cache.mjs), so a
 *   command's first run, or every run where home folders do not last (containers, CI), starts as
 *   fast as a later one. It is trusted as the file itself is: used only when it and its folder
 *   belong to the file's owner and nobody else may write them, and it names the file's size and
 *   modification time to the nanosecond (an edit made after the build moves them).
 *
 * Tools can reach neither, even when the workspace holds them (workspace/own-folders.ts). Without
 * either, or with `TACKLE_CODE_CACHE=0`, the file runs without a cache; see {@link codeCacheSetting}.
 */
export function runWithCodeCache(file: string, argv: readonly string[]): void {
  const bytes = readFileSync(file);
  // The bundle is built ASCII-only: read as Latin-1 it is a one-byte string at once, where UTF-8
  // decoding makes a two-byte one, about ten times slower (scripts/bundle-cli.mjs).
  const source = bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
  const setting = codeCacheSetting();
  const st = setting === "off" ? undefined : statSync(file, { bigint: true, throwIfNoEntry: false });
  const command = commandKey(argv);
  const own = st && setting !== "build" ? ownEntry(file, st, command) : undefined;
  const built = st && setting !== "own" ? buildEntry(file, st, command) : undefined;
  let cachedData = own?.read();
  let partial = false;
  if (cachedData === undefined && setting === "on" && st) {
    cachedData = built?.read();
    const nearest = nearestBuilt(command);
    if (cachedData === undefined && nearest !== command) {
      // The build ran a few commands; another (tackle call with another tool) shares most of what
      // the nearest of them compiled, and keeps a cache of its own with the rest.
      cachedData = buildEntry(file, st, nearest).read();
      partial = cachedData !== undefined;
    }
  }
  // Bundled packages' own import() calls (none reached today) still work, with Node's warning.
  const fallbackLoader = (vm.constants as Partial<typeof vm.constants> | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (!source.startsWith(BUNDLE_HEAD)) throw new Error(`${file} is not a bundle tackle built (npm run build makes one).`);
  const script = new vm.Script(source, { filename: file, cachedData, importModuleDynamically: fallbackLoader });
  const target = setting === "build" ? built : own;
  if (target && (cachedData === undefined || partial || script.cachedDataRejected)) {
    // Written late, the cache holds every function this run compiled, not only the top level: at
    // exit, or sooner in a long-running command, before V8 throws away the code that ran only at
    // start (see STARTED_UP): when the command says its start-up is over, or some seconds in.
    let saved = false;
    const save = () => {
      if (saved) return;
      saved = true;
      clearTimeout(timer);
      try {
        target.write(script.createCachedData());
      } catch {
        // A cache is an optimisation: a full disk or a read-only home must not fail the command.
      }
    };
    const timer = setTimeout(save, SAVED_AFTER_MS).unref();
    process.once(STARTED_UP, save);
    process.once("exit", save);
  }
  const require = createRequire(file);
  const module = { exports: {}, filename: file, id: file, loaded: false, require };
  const importAtRuntime = (specifier: string): Promise<unknown> => import(specifier);
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, require, module, file, path.dirname(file), importAtRuntime);
}

/** One place compiled code is kept for a command: what it holds for this source, and how to replace it. */
interface Entry {
  read(): Buffer | undefined;
  write(data: Buffer): void;
}

/**
 * The user's entry for `command`, in the private cache folder; undefined without such a folder.
 * Entries are named for the build (size and modification time), Node and the command.
 */
function ownEntry(file: string, st: BigIntStats, command: string): Entry | undefined {
  const dir = tackleCacheDir();
  if (!ownFolder(dir)) return undefined;
  const stamp = `${st.size.toString(36)}${(st.mtimeNs / 1_000_000n).toString(36)}`;
  const name = `cli-${stamp}-${process.version}-${process.arch}-${command}.bin`;
  const entryFile = path.join(dir, name);
  const identity = [st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs].join(":");
  let seal: Sealer | undefined | null = null;
  const sealing = () => (seal === null ? (seal = sealer(path.join(dir, "key"), identity)) : seal);
  return {
    read() {
      const entry = readOwnFile(entryFile, MAX_ENTRY_BYTES);
      if (!entry || entry.length <= MAC_BYTES) return undefined;
      const data = entry.subarray(MAC_BYTES);
      const mac = sealing()?.(data);
      return mac && timingSafeEqual(entry.subarray(0, MAC_BYTES), mac) ? data : undefined;
    },
    write(data) {
      const mac = sealing()?.(data);
      if (!mac) return;
      replaceOwnFile(entryFile, Buffer.concat([mac, data]));
      dropOtherBuilds(dir, name, stamp);
    },
  };
}

/** Computes an entry's MAC: over the source file's identity and the entry, under the folder's key. */
type Sealer = (data: Buffer) => Buffer;

function sealer(keyFile: string, identity: string): Sealer | undefined {
  const key = readKey(keyFile);
  if (!key) return undefined;
  return (data) => createHmac("sha256", key).update(`${identity}\n`).update(data).digest();
}

/** The folder's key, made on first use. */
function readKey(keyFile: string): Buffer | undefined {
  const existing = readOwnFile(keyFile, 1024);
  if (existing && existing.length === 32) return existing;
  if (existing) return undefined;
  try {
    const key = randomBytes(32);
    writeFileSync(keyFile, key, { mode: 0o600, flag: "wx" });
    return key;
  } catch {
    // Another process made it first: use theirs if it is sound.
    const made = readOwnFile(keyFile, 1024);
    return made && made.length === 32 ? made : undefined;
  }
}

/**
 * Caches of other builds for the same command are dead weight; so are other builds' caches
 * written over a week ago for any command (an upgrade leaves one per command and tool used).
 * A second installed build still in use writes its own again, once a week at most.
 */
function dropOtherBuilds(dir: string, name: string, stamp: string): void {
  const suffix = name.slice(`cli-${stamp}`.length);
  const weekAgo = Date.now() - OTHER_BUILDS_KEPT_MS;
  for (const other of readdirSync(dir)) {
    if (!other.startsWith("cli-") || other.startsWith(`cli-${stamp}-`)) continue;
    const entry = path.join(dir, other);
    if (other.endsWith(suffix) || (statSync(entry, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < weekAgo)
      rmSync(entry, { force: true });
  }
}

/** The command the build ran whose compiled code suits `command` best. */
function nearestBuilt(command: string): string {
  if (command === "call" || command.startsWith("call.")) return "call.read_file";
  return command.startsWith("mcp") ? "mcp" : "tools";
}

/**
 * The build's entry for `command`, beside the file (see {@link runWithCodeCache}). Its first line
 * names the file it was compiled from, `tackle-code-cache <size> <mtime in ns>`; the compiled code follows.
 */
function buildEntry(file: string, st: BigIntStats, command: string): Entry {
  const name = `${command}-${process.version}-${process.arch}.bin`;
  const header = `tackle-code-cache ${st.size} ${st.mtimeNs}\n`;
  return {
    read() {
      const entry = readBuildFile(name, MAX_ENTRY_BYTES, file);
      if (!entry || entry.length <= header.length || entry.toString("latin1", 0, header.length) !== header) return undefined;
      return entry.subarray(header.length);
    },
    write: (data) => writeBuildFile(name, Buffer.concat([Buffer.from(header, "latin1"), data]), file),
  };
}

/**
 * The command a run belongs to, and what within it compiles code of its own: the tool for
 * `tackle call`, the transport for `tackle mcp` (one key for both kept whichever ran first).
 */
function commandKey(argv: readonly string[]): string {
  const command = argv.find((arg) => !arg.startsWith("-"));
  if (command === undefined || !COMMANDS.has(command)) return "other";
  if (command === "mcp") return argv.some((arg) => arg === "--http" || arg.startsWith("--http=")) ? "mcp.http" : "mcp";
  if (command !== "call") return command;
  const tool = argv[argv.indexOf(command) + 1];
  return tool !== undefined && /^[A-Za-z0-9_.]{1,64}$/.test(tool) ? `call.${tool}` : "call";
}
