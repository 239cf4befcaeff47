import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";

/*
 * A real PostgreSQL server for the store's tests: Debian's binaries, a fresh cluster in a
 * temporary folder, listening on 127.0.0.1 only (no socket file), password-protected, run as an
 * unprivileged user when the tests run as root, and removed when stopped.
 */

export interface Postgres {
  url: string;
  stop(): Promise<void>;
}

/** Where Debian keeps the newest PostgreSQL's programs, or why the tests skip. */
export function postgresBin(): { bin: string } | { skip: string } {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(path.join(root, v, "bin", "initdb"))) : [];
  if (versions.length === 0) return { skip: "PostgreSQL is not installed (Debian's postgresql package; .ci/run installs it)" };
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0]!;
  return { bin: path.join(root, newest, "bin") };
}

/**
 * A suite that needs PostgreSQL: skipped, saying why in its title, where the programs are missing.
 * Use as `describe.skipIf(suite.skip)(suite.title, ...)` and start the server from `suite.bin`.
 */
export function postgresSuite(title: string): { title: string; skip: boolean; bin: string } {
  const found = postgresBin();
  return "skip" in found ? { title: `${title} (skipped: ${found.skip})`, skip: true, bin: "" } : { title, skip: false, bin: found.bin };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The user to run the server as: postgres (or nobody) when running as root, else ourselves. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    const r = spawnSync("id", ["-u", name], { encoding: "utf8" });
    const g = spawnSync("id", ["-g", name], { encoding: "utf8" });
    if (r.status === 0 && g.status === 0) return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
  }
  throw new Error("running as root, but there is no postgres or nobody user to run PostgreSQL as");
}

export async function startPostgres(bin: string): Promise<Postgres> {
  // What may wait comes before the folder, and all after it is synchronous and removes the folder
  // when it fails: a process that ends in between, or a start that fails, leaves nothing behind.
  const port = await freePort();
  const user = runAs();
  const dir = mkdtempSync(path.join(os.tmpdir(), "tackle-pg-"));
  const password = `pw${Math.random().toString(36).slice(2)}`;
  const pwfile = path.join(dir, "pw");
  const data = path.join(dir, "data");
  const run = (program: string, args: string[]) => {
    const command = user ? "setpriv" : path.join(bin, program);
    const full = user ? [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", "--", path.join(bin, program), ...args] : args;
    // Its own folder as the working one: the user it runs as may not enter ours.
    execFileSync(command, full, { cwd: dir, stdio: ["ignore", "pipe", "pipe"], timeout: 300_000 });
  };
  try {
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (user) {
      chownSync(dir, user.uid, user.gid);
      chownSync(pwfile, user.uid, user.gid);
    }
    chmodSync(dir, 0o700);
    run("initdb", [
      "-D",
      data,
      "-U",
      "tackle",
      "--auth=scram-sha-256",
      `--pwfile=${pwfile}`,
      "-E",
      "UTF8",
      "--no-sync",
      "--no-instructions",
    ]);
    run("pg_ctl", [
      "-D",
      data,
      "-w",
      "-t",
      "300",
      "-l",
      path.join(dir, "log"),
      "-o",
      `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off -c max_connections=200`,
      "start",
    ]);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start: ${(err as { stderr?: Buffer }).stderr?.toString() ?? (err as Error).message}`);
  }
  return {
    url: `postgres://tackle:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "120", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
