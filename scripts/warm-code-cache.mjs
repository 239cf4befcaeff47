// Leaves compiled code for the command's first runs in dist/cli/code-cache (see src/cli/code-cache.ts):
// runs what people start most, `tackle mcp` up to its first tools/list, `tackle tools`,
// `tackle call read_file` and a first `tackle call shell` (an echo), in a scratch workspace and home
// with TACKLE_CODE_CACHE=build, so each writes what it compiled there (other commands start from the
// nearest of these). A run that fails costs its command's first start only, so the build goes on
// and says which.
//   node scripts/warm-code-cache.mjs [folder of main.cjs and tackle.cjs, default dist/cli]
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const folder = path.resolve(process.argv[2] ?? "dist/cli");
const main = path.join(folder, "main.cjs");
const cacheDir = path.join(folder, "code-cache");
const RUN_LIMIT_MS = 120_000;

const scratch = mkdtempSync(path.join(os.tmpdir(), "tackle-warm-"));
const workspace = path.join(scratch, "workspace");
mkdirSync(workspace);
writeFileSync(path.join(workspace, "notes.txt"), "one\ntwo\n");
const env = {
  ...process.env,
  TACKLE_CODE_CACHE: "build",
  HOME: scratch,
  XDG_CACHE_HOME: path.join(scratch, "cache"),
  XDG_STATE_HOME: path.join(scratch, "state"),
  XDG_CONFIG_HOME: path.join(scratch, "config"),
};

/**
 * Runs the command to its exit. `messages` go to its stdin one at a time, each request once the
 * answer to the one before has come (a notification has none), and then stdin ends.
 */
function run(args, messages = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], { cwd: workspace, env, stdio: ["pipe", "pipe", "pipe"] });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`did not finish in ${RUN_LIMIT_MS / 1000} s`));
    }, RUN_LIMIT_MS);
    let awaited;
    const sendUntilRequest = () => {
      for (let message = messages.shift(); message; message = messages.shift()) {
        child.stdin.write(`${JSON.stringify(message)}\n`);
        if (message.id !== undefined) return (awaited = message.id);
      }
      child.stdin.end();
    };
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      for (let end = out.indexOf("\n"); end >= 0; end = out.indexOf("\n")) {
        const line = out.slice(0, end);
        out = out.slice(end + 1);
        if (awaited !== undefined && idOf(line) === awaited) sendUntilRequest();
      }
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`exited with ${code}: ${stderr.trim().slice(-500)}`));
    });
    sendUntilRequest();
  });
}

/** A JSON-RPC line's id; undefined for anything else, which is only passed over (a bad line must not stop the build). */
function idOf(line) {
  try {
    return JSON.parse(line)?.id;
  } catch {
    return undefined;
  }
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "tackle-build", version: "1" } },
};
const warmed = [
  [
    "mcp",
    ["mcp", "--workspace", workspace],
    [initialize, { jsonrpc: "2.0", method: "notifications/initialized" }, { jsonrpc: "2.0", id: 2, method: "tools/list" }],
  ],
  ["tools", ["tools"]],
  ["call read_file", ["call", "read_file", "path=notes.txt"]],
  // A first shell call: plain words (most commands; no bash grammar), the sandbox check and a confined run (or whatever runs where
  // bubblewrap cannot).
  ["call shell", ["call", "shell", "command=echo warm", "--approval", "all"]],
];
try {
  rmSync(cacheDir, { recursive: true, force: true });
  const failed = [];
  for (const [label, args, messages = []] of warmed) {
    try {
      await run(args, [...messages]);
    } catch (err) {
      failed.push(`tackle ${label}: ${err.message}`);
    }
  }
  const entries = existsSync(cacheDir)
    ? readdirSync(cacheDir, { withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith(".bin"))
    : [];
  const bytes = entries.reduce((sum, e) => sum + statSync(path.join(cacheDir, e.name)).size, 0);
  console.log(
    `Code cache for first runs: ${entries.length} commands, ${(bytes / 1024 / 1024).toFixed(1)} MB in ${path.relative(process.cwd(), cacheDir)}`,
  );
  if (failed.length) console.warn(`Left out (those commands' first runs compile afresh):\n  ${failed.join("\n  ")}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
