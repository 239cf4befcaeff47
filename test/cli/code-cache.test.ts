import { execFileSync, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { waitFor } from "../mcp/server/helpers.js";
import { tempDir } from "../support/tools.js";
import { CLI, runCli } from "./run-cli.js";

// The bundled command runs with V8's code cache (src/cli/code-cache.ts): the user's own, kept in a
// private folder, and the one the build leaves beside the command for first runs. Most tests here
// are of the user's own (TACKLE_CODE_CACHE=own), the last ones of the build's.
let home: ReturnType<typeof tempDir>;
let cacheDir: string;
const env = () => ({ XDG_CACHE_HOME: home.dir, TACKLE_CODE_CACHE: "own" });
const cacheFiles = () => readdirSync(cacheDir).filter((name) => name.endsWith(".bin"));

/** Whether an entry's MAC verifies under the folder's key and the bundle file's identity, as tackle checks it. */
function verifies(entry: Buffer): boolean {
  const st = statSync(path.join(path.dirname(CLI), "tackle.cjs"), { bigint: true });
  const identity = [st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs].join(":");
  const key = readFileSync(path.join(cacheDir, "key"));
  const mac = createHmac("sha256", key).update(`${identity}\n`).update(entry.subarray(32)).digest();
  return mac.equals(entry.subarray(0, 32));
}

/** tackle mcp on stdio in `workspace`, with this test's cache folder. */
function mcpOverStdio(workspace: string): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", "--workspace", workspace],
    env: { ...(process.env as Record<string, string>), ...env() },
    stderr: "ignore",
  });
}

/** The built command run as a server with this test's cache folder, once it has said `ready` on stderr. */
async function serverSaying(args: string[], ready: RegExp): Promise<{ stop(): Promise<void> }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env() }, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += String(d)));
  try {
    await waitFor(() => ready.test(stderr) || child.exitCode !== null, 60_000);
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
  if (!ready.test(stderr)) throw new Error(`the server stopped before it was ready: ${stderr}`);
  return { stop };
}

/** The name of the stdio server's cache entry, once there is one. */
const mcpEntry = () => (existsSync(cacheDir) ? cacheFiles().find((n) => n.endsWith("-mcp.bin")) : undefined);

beforeEach(() => {
  home = tempDir();
  cacheDir = path.join(home.dir, "tackle");
});
afterEach(() => home.cleanup());

describe("the user's code cache", { timeout: 180_000 }, () => {
  it("is written by a command's first run, privately, and used by the next", async () => {
    const first = await runCli(["tools", "--json"], { env: env() });
    expect(first.code).toBe(0);
    expect(cacheFiles()).toEqual([expect.stringMatching(/^cli-.*-tools\.bin$/)]);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    const file = path.join(cacheDir, cacheFiles()[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = statSync(file).mtimeMs;
    const second = await runCli(["tools", "--json"], { env: env() });
    expect(second.stdout).toBe(first.stdout);
    // An accepted cache is not written again.
    expect(statSync(file).mtimeMs).toBe(written);
  });

  it("is used by the next tackle call shell too: loading the bash grammar changes no V8 flag that would make V8 refuse it", async () => {
    const ws = tempDir();
    try {
      const args = ["call", "shell", "command=echo hi | tr h H", "--approval", "all", "--workspace", ws.dir];
      const first = await runCli(args, { env: env() });
      // The grammar's runtime is bundled, so the cache covers it: loading it imports nothing at run
      // time (code run by node:vm could only do that with Node's experimental-feature warning).
      expect(first).toMatchObject({ code: 0, stderr: "" });
      expect(first.stdout).toContain("Hi");
      expect(readFileSync(path.join(path.dirname(CLI), "tackle.cjs"), "latin1")).toContain("node_modules/web-tree-sitter/tree-sitter.cjs");
      const file = path.join(
        cacheDir,
        cacheFiles().find((name) => name.endsWith("-call.shell.bin"))!,
      );
      const written = statSync(file).mtimeMs;
      expect(await runCli(args, { env: env() })).toMatchObject({ code: 0, stdout: expect.stringContaining("Hi"), stderr: "" });
      expect(statSync(file).mtimeMs).toBe(written);
    } finally {
      ws.cleanup();
    }
  });

  it("keeps one cache per command, and per tool for tackle call", async () => {
    await runCli(["--version"], { env: env() });
    await runCli(["call", "read_file", "path=package.json", "limit=1"], { env: env() });
    expect(cacheFiles().map((n) => n.replace(/^cli-.*-/, ""))).toEqual(["call.read_file.bin", "other.bin"]);
  });

  it("is written by a running tackle mcp once its first tools/list is answered, before V8 drops the code start-up ran", async () => {
    const ws = tempDir();
    const client = new Client({ name: "cache-test", version: "1" });
    try {
      await client.connect(mcpOverStdio(ws.dir));
      expect(existsSync(cacheDir) ? cacheFiles() : []).toEqual([]);
      await client.listTools();
      // Still running: the entry appears while the client is connected, not when the server exits.
      const name = await waitFor(mcpEntry, 60_000);
      expect(verifies(readFileSync(path.join(cacheDir, name)))).toBe(true);
      const written = statSync(path.join(cacheDir, name)).mtimeMs;
      await client.callTool({ name: "list_directory", arguments: { path: "." } });
      await client.close();
      // Once written, it is not written again at exit.
      expect(statSync(path.join(cacheDir, name)).mtimeMs).toBe(written);
    } finally {
      await client.close().catch(() => undefined);
      ws.cleanup();
    }
  });

  it("is written by a running tackle mcp some seconds in, when its client never lists the tools", async () => {
    const ws = tempDir();
    const client = new Client({ name: "cache-test", version: "1" });
    try {
      await client.connect(mcpOverStdio(ws.dir));
      await client.callTool({ name: "list_directory", arguments: { path: "." } });
      const name = await waitFor(mcpEntry, 90_000);
      expect(verifies(readFileSync(path.join(cacheDir, name)))).toBe(true);
    } finally {
      await client.close().catch(() => undefined);
      ws.cleanup();
    }
  });

  it("keeps tackle mcp --http's cache apart from the stdio server's: they run different code", async () => {
    const ws = tempDir();
    const server = await serverSaying(["mcp", "--http", "0", "--workspace", ws.dir], /listening on http:/);
    try {
      await server.stop();
      expect(cacheFiles()).toEqual([expect.stringMatching(/-mcp\.http\.bin$/)]);
    } finally {
      await server.stop();
      ws.cleanup();
    }
  });

  it("is written by a running tackle serve once it listens", async () => {
    const ws = tempDir();
    const store = tempDir();
    const server = await serverSaying(
      ["serve", "--port", "0", "--workspace", ws.dir, "--store", `file:${path.join(store.dir, "desk")}`],
      /serving on http:/,
    );
    try {
      const name = await waitFor(() => (existsSync(cacheDir) ? cacheFiles().find((n) => n.endsWith("-serve.bin")) : undefined), 60_000);
      expect(verifies(readFileSync(path.join(cacheDir, name)))).toBe(true);
    } finally {
      await server.stop();
      ws.cleanup();
      store.cleanup();
    }
  });

  it("survives a damaged cache: the command runs and the cache is written afresh", async () => {
    const first = await runCli(["--version"], { env: env() });
    const file = path.join(cacheDir, cacheFiles()[0]!);
    writeFileSync(file, Buffer.from("not a code cache at all"));
    const second = await runCli(["--version"], { env: env() });
    expect(second).toMatchObject({ code: 0, stdout: first.stdout, stderr: "" });
    expect(readFileSync(file).length).toBeGreaterThan(1000);
  });

  it("replaces the caches of earlier builds for the same command", async () => {
    mkdirSync(cacheDir, { mode: 0o700 });
    const stale = path.join(cacheDir, `cli-oldbuild-${process.version}-${process.arch}-other.bin`);
    writeFileSync(stale, "old");
    await runCli(["--version"], { env: env() });
    expect(cacheFiles()).toEqual([expect.not.stringContaining("oldbuild")]);
  });

  it("drops other builds' caches written over a week ago for any command, and keeps newer ones", async () => {
    mkdirSync(cacheDir, { mode: 0o700 });
    const entry = (build: string, command: string, daysAgo: number) => {
      const file = path.join(cacheDir, `cli-${build}-${process.version}-${process.arch}-${command}.bin`);
      writeFileSync(file, "old");
      const at = new Date(Date.now() - daysAgo * 24 * 60 * 60 * 1000);
      utimesSync(file, at, at);
      return path.basename(file);
    };
    const old = entry("oldbuild", "call.glob", 8);
    const recent = entry("otherbuild", "call.glob", 1);
    const recentTools = entry("otherbuild", "tools", 6);
    await runCli(["--version"], { env: env() });
    const left = cacheFiles();
    expect(left).not.toContain(old);
    expect(left).toEqual(expect.arrayContaining([recent, recentTools]));
    expect(left).toHaveLength(3);
  });

  it("is not used from a folder others can write, nor when TACKLE_CODE_CACHE=0", async () => {
    mkdirSync(cacheDir);
    chmodSync(cacheDir, 0o777);
    expect((await runCli(["--version"], { env: env() })).code).toBe(0);
    expect(cacheFiles()).toEqual([]);
    chmodSync(cacheDir, 0o700);
    expect((await runCli(["--version"], { env: { ...env(), TACKLE_CODE_CACHE: "0" } })).code).toBe(0);
    expect(cacheFiles()).toEqual([]);
  });

  it("uses only entries it sealed for this source: one without a valid MAC is ignored and written afresh", async () => {
    await runCli(["--version"], { env: env() });
    const file = path.join(cacheDir, cacheFiles()[0]!);
    const sealed = readFileSync(file);
    // The bare compiled code, as an older tackle (or anyone who can write the folder) would leave it.
    writeFileSync(file, sealed.subarray(32), { mode: 0o600 });
    const again = await runCli(["--version"], { env: env() });
    expect(again.code).toBe(0);
    expect(verifies(readFileSync(file))).toBe(true);
    // Another key: the same entry no longer verifies, and is replaced by one that does.
    writeFileSync(path.join(cacheDir, "key"), Buffer.alloc(32, 7), { mode: 0o600 });
    expect(verifies(sealed)).toBe(false);
    await runCli(["--version"], { env: env() });
    expect(verifies(readFileSync(file))).toBe(true);
  });

  it("ignores a FIFO, a symlink or another user's writable file where an entry or the key should be", async () => {
    await runCli(["--version"], { env: env() });
    const name = cacheFiles()[0]!;
    const file = path.join(cacheDir, name);
    rmSync(file);
    execFileSync("mkfifo", [file]);
    const fifo = await runCli(["--version"], { env: env(), timeoutMs: 60_000 });
    expect(fifo.code).toBe(0);
    rmSync(file);
    writeFileSync(path.join(home.dir, "elsewhere.bin"), "x");
    symlinkSync(path.join(home.dir, "elsewhere.bin"), file);
    expect((await runCli(["--version"], { env: env() })).code).toBe(0);
    expect(readFileSync(path.join(home.dir, "elsewhere.bin"), "utf8")).toBe("x");
    rmSync(path.join(cacheDir, "key"));
    execFileSync("mkfifo", [path.join(cacheDir, "key")]);
    expect((await runCli(["--version"], { env: env(), timeoutMs: 60_000 })).code).toBe(0);
  });

  it("no tool reads or writes it, even when the workspace holds it", async () => {
    await runCli(["--version"], { env: env() });
    const name = cacheFiles()[0]!;
    const write = await runCli(["call", "write_file", `path=tackle/${name}.planted`, "content=x", "--approval", "all", "--json"], {
      env: env(),
      cwd: home.dir,
    });
    expect(JSON.parse(write.stdout)).toMatchObject({ status: "error", error: { code: "PERMISSION_DENIED" } });
    const read = await runCli(["call", "read_file", "path=tackle/key", "--json"], { env: env(), cwd: home.dir });
    expect(JSON.parse(read.stdout)).toMatchObject({ status: "error", error: { code: "PERMISSION_DENIED" } });
  });
});

describe("the tools' JSON Schemas kept between runs", { timeout: 180_000 }, () => {
  const store = () => path.join(cacheDir, "json-schemas.json");

  it("are written privately by the first run and give the next the same listing", async () => {
    const first = await runCli(["tools", "--json"], { env: env() });
    expect(first.code).toBe(0);
    expect(statSync(store()).mode & 0o777).toBe(0o600);
    const kept = JSON.parse(readFileSync(store(), "utf8")) as Record<string, string>;
    expect(Object.keys(kept).length).toBeGreaterThan(20);
    const written = statSync(store()).mtimeMs;
    const second = await runCli(["tools", "--json"], { env: env() });
    expect(second.stdout).toBe(first.stdout);
    // Nothing new was converted, so nothing is written again.
    expect(statSync(store()).mtimeMs).toBe(written);
  });

  it("are not read from a file others may write, nor kept with TACKLE_CODE_CACHE=0", async () => {
    const first = await runCli(["tools", "--json"], { env: env() });
    const planted = Object.fromEntries(
      Object.keys(JSON.parse(readFileSync(store(), "utf8")) as Record<string, string>).map((k) => [k, '{"type":"object","planted":true}']),
    );
    writeFileSync(store(), JSON.stringify(planted));
    chmodSync(store(), 0o666);
    const second = await runCli(["tools", "--json"], { env: env() });
    expect(second.stdout).toBe(first.stdout);
    expect(second.stdout).not.toContain("planted");
    rmSync(store());
    expect((await runCli(["tools", "--json"], { env: { ...env(), TACKLE_CODE_CACHE: "0" } })).stdout).toBe(first.stdout);
    expect(existsSync(store())).toBe(false);
  });
});

describe("the build's code cache, for first runs", { timeout: 180_000 }, () => {
  const built = path.join(path.dirname(CLI), "code-cache");
  const firstRun = () => ({ XDG_CACHE_HOME: home.dir, TACKLE_CODE_CACHE: "" });
  const ownEntries = () => (existsSync(cacheDir) ? cacheFiles() : []);
  const entryName = (command: string) => `${command}-${process.version}-${process.arch}.bin`;

  it("is left by the build for tackle mcp, tools, call read_file and call shell, readable by all and written by its owner alone", () => {
    const bundle = statSync(path.join(path.dirname(CLI), "tackle.cjs"), { bigint: true });
    expect(statSync(built).mode & 0o777).toBe(0o755);
    for (const command of ["mcp", "tools", "call.read_file", "call.shell"]) {
      const file = path.join(built, entryName(command));
      expect(statSync(file).mode & 0o777).toBe(0o644);
      // It names the very build it was compiled from.
      expect(readFileSync(file, "latin1").split("\n", 1)[0]).toBe(`tackle-code-cache ${bundle.size} ${bundle.mtimeNs}`);
    }
    expect(Object.keys(JSON.parse(readFileSync(path.join(built, "json-schemas.json"), "utf8")) as object).length).toBeGreaterThan(20);
  });

  it("gives a first run all it needs: the run compiles and converts nothing, so it keeps nothing of its own", async () => {
    const first = await runCli(["tools", "--json"], { env: firstRun() });
    expect(first.code).toBe(0);
    expect(ownEntries()).toEqual([]);
    expect(existsSync(path.join(cacheDir, "json-schemas.json"))).toBe(false);
    // The same listing as a run that compiled everything.
    expect((await runCli(["tools", "--json"], { env: { ...firstRun(), TACKLE_CODE_CACHE: "0" } })).stdout).toBe(first.stdout);
    // A command the build did not run starts from the nearest one's and keeps its own.
    await runCli(["--version"], { env: firstRun() });
    expect(ownEntries()).toEqual([expect.stringMatching(/-other\.bin$/)]);
  });

  it("starts tackle call with a tool the build did not call from what tackle call read_file compiled, and keeps the rest for next time", async () => {
    const ws = tempDir();
    try {
      writeFileSync(path.join(ws.dir, "a.txt"), "a\n");
      const args = ["call", "list_directory", "path=.", "--workspace", ws.dir];
      const first = await runCli(args, { env: firstRun() });
      expect(first).toMatchObject({ code: 0, stderr: "" });
      expect(first.stdout).toContain("a.txt");
      const name = ownEntries().find((n) => n.endsWith("-call.list_directory.bin"));
      expect(name).toBeDefined();
      const written = statSync(path.join(cacheDir, name!)).mtimeMs;
      // The next run takes its own, whole, and writes nothing.
      expect(await runCli(args, { env: firstRun() })).toMatchObject({ code: 0, stdout: first.stdout });
      expect(statSync(path.join(cacheDir, name!)).mtimeMs).toBe(written);
    } finally {
      ws.cleanup();
    }
  });

  it("is the user's alone to bypass: TACKLE_CODE_CACHE=own compiles and keeps its own, =0 keeps nothing", async () => {
    await runCli(["tools", "--json"], { env: { ...firstRun(), TACKLE_CODE_CACHE: "0" } });
    expect(existsSync(cacheDir) ? readdirSync(cacheDir) : []).toEqual([]);
    await runCli(["tools", "--json"], { env: env() });
    expect(ownEntries()).toEqual([expect.stringMatching(/-tools\.bin$/)]);
  });

  describe("on a copy of the command whose cache a test may spoil", () => {
    let copy: string;
    let main: string;
    let entry: string;
    beforeEach(() => {
      // Beside dist/cli, so the copy finds the packages and files the command finds.
      copy = mkdtempSync(path.join(path.dirname(path.dirname(CLI)), "cli-copy-"));
      main = path.join(copy, "main.cjs");
      copyFileSync(CLI, main);
      copyFileSync(path.join(path.dirname(CLI), "tackle.cjs"), path.join(copy, "tackle.cjs"));
      execFileSync(process.execPath, [path.join(path.dirname(CLI), "../../scripts/warm-code-cache.mjs"), copy], { stdio: "ignore" });
      entry = path.join(copy, "code-cache", entryName("tools"));
    });
    afterEach(() => rmSync(copy, { recursive: true, force: true }));

    /** Whether a first run of `tackle tools` from the copy compiled afresh (and so kept its own entry), giving the same listing. */
    async function compiledAfresh(): Promise<boolean> {
      rmSync(cacheDir, { recursive: true, force: true });
      const run = await runCli(["tools", "--json"], { env: firstRun(), cli: main, timeoutMs: 120_000 });
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(JSON.parse(run.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ name: "read_file" })]));
      return ownEntries().length > 0;
    }

    it("is used as written, and not once the command changed after the build", async () => {
      expect(await compiledAfresh()).toBe(false);
      const later = new Date(Date.now() + 5_000);
      utimesSync(path.join(copy, "tackle.cjs"), later, later);
      expect(await compiledAfresh()).toBe(true);
    });

    it("is not used from a file or folder others may write, nor through a link, nor from a FIFO", async () => {
      chmodSync(entry, 0o666);
      expect(await compiledAfresh()).toBe(true);
      chmodSync(entry, 0o644);
      chmodSync(path.dirname(entry), 0o777);
      expect(await compiledAfresh()).toBe(true);
      chmodSync(path.dirname(entry), 0o755);
      expect(await compiledAfresh()).toBe(false);
      const real = `${entry}.real`;
      renameSync(entry, real);
      symlinkSync(real, entry);
      expect(await compiledAfresh()).toBe(true);
      rmSync(entry);
      execFileSync("mkfifo", [entry]);
      expect(await compiledAfresh()).toBe(true);
    });

    it("survives an entry that names the build but holds no sound code: V8 refuses it and the run compiles afresh", async () => {
      const header = readFileSync(entry, "latin1").split("\n", 1)[0]!;
      writeFileSync(entry, `${header}\n${"x".repeat(4096)}`, { mode: 0o644 });
      expect(await compiledAfresh()).toBe(true);
    });
  });

  it("is out of every tool's reach with the program: no tool writes or reads them, nor a command only a mode approved, nor run_code", async () => {
    // Here the repository holding dist/; a project with tackle in node_modules holds it alike.
    const ws = path.dirname(path.dirname(path.dirname(CLI)));
    const cliEnv = { ...firstRun(), XDG_STATE_HOME: home.dir, XDG_CONFIG_HOME: home.dir };
    const bundle = path.join(path.dirname(CLI), "tackle.cjs");
    const before = readFileSync(bundle);
    for (const target of ["dist/cli/code-cache/planted.bin", "dist/cli/tackle.cjs", "dist/cli/main.cjs", "dist/index.js"]) {
      const write = await runCli(
        ["call", "write_file", `path=${target}`, "content=planted", "--approval", "all", "--json", "--workspace", ws],
        {
          env: cliEnv,
        },
      );
      expect(JSON.parse(write.stdout), target).toMatchObject({ status: "error", error: { code: "PERMISSION_DENIED" } });
      expect(JSON.parse(write.stdout).content).toContain("tackle's own program, cache or state folder");
    }
    const read = await runCli(["call", "read_file", "path=dist/cli/code-cache/json-schemas.json", "--json", "--workspace", ws], {
      env: cliEnv,
    });
    expect(JSON.parse(read.stdout)).toMatchObject({ status: "error", error: { code: "PERMISSION_DENIED" } });
    const shell = await runCli(
      [
        "call",
        "shell",
        "command=ls dist/cli/code-cache; d=dist/cli; echo x > $d/code-cache/planted.bin; echo planted >> $d/tackle.cjs",
        "--approval",
        "all",
        "--json",
        "--workspace",
        ws,
      ],
      { env: cliEnv, timeoutMs: 120_000 },
    );
    // Named through a variable, the targets escape the command's analysis; the sandbox shows the
    // folders (they hold no secret), read-only.
    expect(shell.stdout).toContain("json-schemas.json");
    expect(shell.stdout).toMatch(/Read-only file system/);
    expect(existsSync(path.join(built, "planted.bin"))).toBe(false);
    expect(readFileSync(bundle).equals(before)).toBe(true);
    // run_code writes its copy of the workspace; that change is never applied.
    const code = await runCli(
      [
        "call",
        "run_code",
        "language=bash",
        "code=d=dist/cli/code-cache; echo x > $d/planted.bin",
        "--approval",
        "all",
        "--json",
        "--workspace",
        ws,
      ],
      { env: cliEnv, timeoutMs: 120_000 },
    );
    expect(JSON.parse(code.stdout)).toMatchObject({ content: expect.stringContaining("Never applied: dist/cli/code-cache/planted.bin") });
    expect(existsSync(path.join(built, "planted.bin"))).toBe(false);
  }, 180_000);
});
