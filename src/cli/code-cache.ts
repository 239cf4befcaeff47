import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import vm from "node:vm";

/** Commands whose runs share what they compile; anything else is cached as "other". */
const COMMANDS = new Set(["call", "tools", "mcp", "serve", "init", "rules", "completion"]);

/**
 * Runs a bundled CommonJS file with V8's code cache, so a cold start skips most parsing and
 * compiling (the work that dominated `tackle mcp`'s start-up). The first run of each command
 * writes what it compiled to a private cache folder when it exits; later runs hand that to V8,
 * which checks it against the source, its own version and flags, and ignores it on any mismatch.
 *
 * The cache lives in `$XDG_CACHE_HOME/tackle` (or `~/.cache/tackle`): a folder owned by this user
 * that nobody else can write, since compiled code read from it runs as this user. When there is no
 * such folder, or `TACKLE_CODE_CACHE=0`, the file runs without a cache.
 */
export function runWithCodeCache(file: string, argv: readonly string[]): void {
  const source = readFileSync(file, "utf8");
  const cacheFile = cachePath(file, argv);
  let cachedData: Buffer | undefined;
  if (cacheFile) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
  }
  // Bundled packages' own import() calls (none reached today) still work, with Node's warning.
  const fallbackLoader = (vm.constants as Partial<typeof vm.constants> | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  const script = new vm.Script(wrap(source), { filename: file, cachedData, importModuleDynamically: fallbackLoader });
  if (cacheFile && (cachedData === undefined || script.cachedDataRejected)) {
    // At exit the cache holds every function this run compiled, not only the top level.
    process.once("exit", () => saveCache(cacheFile, script));
  }
  const require = createRequire(file);
  const module = { exports: {}, filename: file, id: file, loaded: false, require };
  const importAtRuntime = (specifier: string): Promise<unknown> => import(specifier);
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, require, module, file, path.dirname(file), importAtRuntime);
}

// Node's own CommonJS wrapper, so the bundle sees exports, require, module, __filename and
// __dirname, and one more: this module's import(), which code compiled by node:vm lacks.
function wrap(source: string): string {
  return `(function (exports, require, module, __filename, __dirname, __tackleImport) { ${source}\n})`;
}

function cachePath(file: string, argv: readonly string[]): string | undefined {
  const setting = process.env["TACKLE_CODE_CACHE"];
  if (setting === "0" || setting === "false" || setting === "off") return undefined;
  const dir = cacheDir();
  if (!dir) return undefined;
  let stamp: string;
  try {
    const st = statSync(file);
    stamp = `${st.size.toString(36)}${Math.floor(st.mtimeMs).toString(36)}`;
  } catch {
    return undefined;
  }
  return path.join(dir, `cli-${stamp}-${process.version}-${process.arch}-${commandKey(argv)}.bin`);
}

/** The command a run belongs to, and for `tackle call` the tool, since each tool group compiles its own code. */
function commandKey(argv: readonly string[]): string {
  const command = argv.find((arg) => !arg.startsWith("-"));
  if (command === undefined || !COMMANDS.has(command)) return "other";
  if (command !== "call") return command;
  const tool = argv[argv.indexOf(command) + 1];
  return tool !== undefined && /^[A-Za-z0-9_.]{1,64}$/.test(tool) ? `call.${tool}` : "call";
}

/** The private cache folder, made if missing; undefined unless only this user can write it. */
function cacheDir(): string | undefined {
  try {
    const base = process.env["XDG_CACHE_HOME"] || path.join(os.homedir(), ".cache");
    const dir = path.join(base, "tackle");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    const uid = process.getuid?.();
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

function saveCache(cacheFile: string, script: vm.Script): void {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
    renameSync(temporary, cacheFile);
    // Caches of earlier builds for the same command are dead weight.
    // What follows the build's stamp: the Node version, the architecture and the command.
    const suffix = path.basename(cacheFile).replace(/^cli-[^-]*/, "");
    const dir = path.dirname(cacheFile);
    for (const name of readdirSync(dir)) {
      if (name.startsWith("cli-") && name.endsWith(suffix) && path.join(dir, name) !== cacheFile)
        rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    // A cache is an optimisation: a full disk or a read-only home must not fail the command.
    rmSync(temporary, { force: true });
  }
}
