import { isAscii } from "node:buffer";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import vm from "node:vm";
import { cacheTurnedOff, ownFolder, readOwnFile, replaceOwnFile, tackleCacheDir } from "../workspace/own-folders.js";
import { STARTED_UP } from "../process/started-up.js";

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
 * Runs a bundled CommonJS file with V8's code cache, so a cold start skips most parsing and
 * compiling (the work that dominated `tackle mcp`'s start-up). The first run of each command
 * writes what it compiled to a private cache folder when it exits; later runs hand that to V8.
 *
 * Compiled code read from the cache runs as this user, and V8 checks little (it accepts an entry
 * compiled from any source of the same length), so an entry is used only when tackle can tell it
 * wrote it for this very source: each starts with an HMAC, under a key kept in the folder, of the
 * source file's identity and the entry. The identity (device, inode, size, and modification and
 * change times to the nanosecond) moves with any change to the file, the change time even when
 * the modification time is set back; hashing the 4 MB source instead cost 9 ms of every start.
 * Anything else there, a FIFO, a link, a file of another user or one others may write, is ignored.
 * The folder is `$XDG_CACHE_HOME/tackle` (or `~/.cache/tackle`), owned by this user and writable by
 * nobody else; tools cannot reach it even when the workspace holds it (workspace/own-folders.ts).
 * Without such a folder, or with `TACKLE_CODE_CACHE=0`, the file runs without a cache.
 */
export function runWithCodeCache(file: string, argv: readonly string[]): void {
  const bytes = readFileSync(file);
  // The bundle is built ASCII-only: read as Latin-1 it is a one-byte string at once, where UTF-8
  // decoding makes a two-byte one, about ten times slower (scripts/bundle-cli.mjs).
  const source = bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
  const cache = cachePath(file, argv);
  let cachedData: Buffer | undefined;
  const seal = cache ? sealer(cache.key, cache.identity) : undefined;
  if (cache && seal) cachedData = readEntry(cache.file, seal);
  // Bundled packages' own import() calls (none reached today) still work, with Node's warning.
  const fallbackLoader = (vm.constants as Partial<typeof vm.constants> | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  const script = new vm.Script(wrap(source), { filename: file, cachedData, importModuleDynamically: fallbackLoader });
  if (cache && seal && (cachedData === undefined || script.cachedDataRejected)) {
    // Written late, the cache holds every function this run compiled, not only the top level: at
    // exit, or sooner in a long-running command, before V8 throws away the code that ran only at
    // start (see STARTED_UP): when the command says its start-up is over, or some seconds in.
    let saved = false;
    const save = () => {
      if (saved) return;
      saved = true;
      clearTimeout(timer);
      saveCache(cache.file, script, seal);
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

/** The compiled code in an entry, when its MAC says this process's source and key made it. */
function readEntry(file: string, seal: Sealer): Buffer | undefined {
  const entry = readOwnFile(file, MAX_ENTRY_BYTES);
  if (!entry || entry.length <= MAC_BYTES) return undefined;
  const data = entry.subarray(MAC_BYTES);
  return timingSafeEqual(entry.subarray(0, MAC_BYTES), seal(data)) ? data : undefined;
}

// Node's own CommonJS wrapper, so the bundle sees exports, require, module, __filename and
// __dirname, and one more: this module's import(), which code compiled by node:vm lacks.
function wrap(source: string): string {
  return `(function (exports, require, module, __filename, __dirname, __tackleImport) { ${source}\n})`;
}

function cachePath(file: string, argv: readonly string[]): { file: string; key: string; identity: string } | undefined {
  if (cacheTurnedOff()) return undefined;
  const dir = cacheDir();
  if (!dir) return undefined;
  let stamp: string;
  let identity: string;
  try {
    const st = statSync(file, { bigint: true });
    stamp = `${st.size.toString(36)}${(st.mtimeNs / 1_000_000n).toString(36)}`;
    identity = [st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs].join(":");
  } catch {
    return undefined;
  }
  return {
    file: path.join(dir, `cli-${stamp}-${process.version}-${process.arch}-${commandKey(argv)}.bin`),
    key: path.join(dir, "key"),
    identity,
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

/** The private cache folder, made if missing; undefined unless only this user can write it. */
function cacheDir(): string | undefined {
  const dir = tackleCacheDir();
  return ownFolder(dir) ? dir : undefined;
}

function saveCache(cacheFile: string, script: vm.Script, seal: Sealer): void {
  try {
    const data = script.createCachedData();
    replaceOwnFile(cacheFile, Buffer.concat([seal(data), data]));
    // Caches of other builds for the same command are dead weight; so are other builds' caches
    // written over a week ago for any command (an upgrade leaves one per command and tool used).
    // A second installed build still in use writes its own again, once a week at most.
    const name = path.basename(cacheFile);
    const stamp = name.slice(0, name.indexOf("-", 4) + 1);
    const suffix = name.slice(stamp.length - 1);
    const dir = path.dirname(cacheFile);
    const weekAgo = Date.now() - OTHER_BUILDS_KEPT_MS;
    for (const other of readdirSync(dir)) {
      if (!other.startsWith("cli-") || other.startsWith(stamp)) continue;
      const file = path.join(dir, other);
      if (other.endsWith(suffix) || (statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < weekAgo)
        rmSync(file, { force: true });
    }
  } catch {
    // A cache is an optimisation: a full disk or a read-only home must not fail the command.
  }
}
