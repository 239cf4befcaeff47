import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI, runCli } from "../cli/run-cli.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
const children: ChildProcess[] = [];
beforeEach(() => {
  ws = tempDir();
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  ws.cleanup();
});

/** Starts `tackle serve` and waits for the address it prints on stderr. */
function start(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null>; auth: Record<string, string>; stderr: () => string }> {
  const child = spawn(process.execPath, [CLI, "serve", ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let stderr = "";
    const timer = setTimeout(() => reject(new Error(`no address in 20 s: ${stderr}`)), 20_000);
    child.stderr!.on("data", (d) => {
      stderr += String(d);
      const m = /tackle: serving on (http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        const token = /Authorization: Bearer (\S+)/.exec(stderr)?.[1];
        resolve({ child, url: m[1]!, exited, auth: token ? { authorization: `Bearer ${token}` } : {}, stderr: () => stderr });
      }
    });
    child.on("exit", () => reject(new Error(`exited early: ${stderr}`)));
  });
}

describe("tackle serve (the built command)", () => {
  it("prints its address, serves the tools and exits 0 on SIGTERM", async () => {
    const { child, url, exited, auth, stderr } = await start(["--port", "0", "--workspace", ws.dir]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Another local user reaches 127.0.0.1 too: a token is required by default, printed with the
    // dashboard's address, and kept in a file only this user can read.
    expect((await fetch(`${url}/api/tools`)).status).toBe(401);
    const file = /\(kept in (\S+)\)/.exec(stderr())![1]!;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(`Bearer ${readFileSync(file, "utf8").trim()}`).toBe(auth.authorization);
    expect(stderr()).toContain(`${url}/?token=`);
    const tools = (await (await fetch(`${url}/api/tools`, { headers: auth })).json()) as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toContain("read_file");
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(existsSync(file)).toBe(false);
  });

  it.runIf(process.getuid?.() === 0)("another local user (nobody) cannot use it, nor read its token file", async () => {
    const { child, url, exited, stderr } = await start(["--port", "0", "--workspace", ws.dir]);
    const file = /\(kept in (\S+)\)/.exec(stderr())![1]!;
    const script = `fetch(${JSON.stringify(`${url}/api/tools`)}).then((r) => console.log(r.status));
      try { require("fs").readFileSync(${JSON.stringify(file)}); console.log("READ"); } catch { console.log("NO-READ"); }`;
    const other = spawnSync("runuser", ["-u", "nobody", "--", process.execPath, "-e", script], { encoding: "utf8", timeout: 60_000 });
    expect(other.stdout.split("\n").filter(Boolean).sort()).toEqual(["401", "NO-READ"]);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("with --no-token, serves without one and says so", async () => {
    const { child, url, exited, stderr } = await start(["--port", "0", "--workspace", ws.dir, "--no-token"]);
    expect(stderr()).toMatch(/no token \(--no-token\)/);
    expect((await fetch(`${url}/api/tools`)).status).toBe(200);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("takes the token from TACKLE_SERVE_TOKEN", async () => {
    const { child, url, exited, stderr } = await start(["--port", "0", "--workspace", ws.dir], { TACKLE_SERVE_TOKEN: "tok" });
    expect((await fetch(`${url}/api/tools`)).status).toBe(401);
    expect((await fetch(`${url}/api/tools`, { headers: { authorization: "Bearer tok" } })).status).toBe(200);
    // Only a token on the command line is worth a warning: the environment is the owner's alone.
    expect(stderr()).not.toContain("can be read by every user");
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  });

  it.each([
    ["serve", ["serve", "--port", "0"], /tackle: serving on/],
    ["mcp --http", ["mcp", "--http", "0"], /listening on/],
  ])(
    "tackle %s hides a token given on the command line from other users' ps, and says to pass it in the environment",
    async (_n, args, ready) => {
      const token = "given-on-the-command-line-0123";
      const child = spawn(process.execPath, [CLI, ...args, "--workspace", ws.dir, "--token", token], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      children.push(child);
      let stderr = "";
      await new Promise<void>((resolve, reject) => {
        child.stderr!.on("data", (d) => {
          stderr += String(d);
          if (ready.test(stderr)) resolve();
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
      });
      const shown = readFileSync(`/proc/${child.pid}/cmdline`, "utf8").replace(/\0/g, " ");
      expect(shown).toContain(`${args[0]} `);
      expect(shown).toContain("--token ***");
      expect(shown).not.toContain(token);
      expect(stderr).toMatch(
        /a token on the command line can be read by every user of this machine \(ps\); pass it as TACKLE_(SERVE|MCP)_TOKEN=/,
      );
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  );

  it("refuses a non-loopback host without a token, and a bad port", async () => {
    const r = await runCli(["serve", "--host", "0.0.0.0", "--port", "0", "--workspace", ws.dir, "--no-token"], {
      env: { TACKLE_SERVE_TOKEN: "" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/token/);
    const bad = await runCli(["serve", "--port", "http", "--workspace", ws.dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--port/);
  });

  it("rejects unanswered approvals after --approval-timeout, and shows the time left", async () => {
    // Overwriting a file asks a person; creating one would not.
    writeFileSync(path.join(ws.dir, "x.txt"), "old");
    const { child, url, exited, auth } = await start(["--port", "0", "--workspace", ws.dir, "--approval-timeout", "5s"]);
    const outcome = fetch(`${url}/api/calls`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...auth },
      body: JSON.stringify({ name: "write_file", id: "t1", args: { path: "x.txt", content: "x" } }),
    }).then((r) => r.json() as Promise<{ status: string; content: string }>);
    let waiting: Array<{ toolCallId: string; timeoutMs: number; remainingMs: number }> = [];
    let settled = false;
    void outcome.finally(() => (settled = true));
    while (waiting.length === 0 && !settled) {
      waiting = (await (await fetch(`${url}/api/approvals`, { headers: auth })).json()) as typeof waiting;
    }
    expect(waiting[0]).toMatchObject({ toolCallId: "t1", timeoutMs: 5000 });
    expect(waiting[0]!.remainingMs).toBeLessThanOrEqual(5000);
    const result = await outcome;
    expect(result.status).toBe("rejected");
    expect(result.content).toContain("5 seconds");
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("refuses an --approval-timeout that is not a duration", async () => {
    const r = await runCli(["serve", "--port", "0", "--workspace", ws.dir, "--approval-timeout", "soon"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--approval-timeout|duration/);
  });
});
