import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolError } from "../../../src/core/errors.js";
import type { ToolExecutionResult } from "../../../src/core/result.js";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { Workspace } from "../../../src/workspace/workspace.js";
import { sandboxAvailable } from "../../../src/sandbox/sandbox.js";
import type { SandboxSettings } from "../../../src/sandbox/config.js";
import { codeTools, createRunCodeTool } from "../../../src/tools/code/index.js";
import { resolveInterpreter } from "../../../src/tools/code/interpreters.js";
import { silentLogger } from "../../../src/core/logger.js";
import { tempDir } from "../../support/tools.js";
import { processesWith as hostProcessesWith } from "../../support/processes.js";

const status = await sandboxAvailable();
if (!status.available) console.warn(`run_code sandbox tests skipped: ${status.reason}`);
/** Tests that need a working bubblewrap; where it cannot run, only the refusal tests run. */
const sandboxed = describe.skipIf(!status.available);

// CI sets TACKLE_REQUIRE_SANDBOX=1 so that a runner that lost bubblewrap fails instead of skipping.
it.runIf(process.env.TACKLE_REQUIRE_SANDBOX === "1")("the sandbox is available where it is required", () => {
  expect(status.available ? "available" : status.reason).toBe("available");
});

type Structured = {
  stdout: string;
  stderr: string;
  exitCode: number;
  duration: number;
  timedOut?: boolean;
  limit?: string;
  truncated?: boolean;
};

let ws: ReturnType<typeof tempDir>;
let outside: ReturnType<typeof tempDir>;
beforeEach(() => {
  ws = tempDir("tackle-code-ws-");
  outside = tempDir("tackle-code-outside-");
});
afterEach(() => {
  ws.cleanup();
  outside.cleanup();
});

interface CallOptions {
  sandbox?: Partial<SandboxSettings>;
  onOutput?: (chunk: string) => void;
  signal?: AbortSignal;
  maxOutputBytes?: number;
}

async function call(args: Record<string, unknown>, options: CallOptions = {}): Promise<ToolExecutionResult & { s: Structured }> {
  const tool = createRunCodeTool({
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.maxOutputBytes ? { maxOutputBytes: options.maxOutputBytes } : {}),
  });
  const result = await tool.execute(args as never, {
    workspace: Workspace.open(ws.dir),
    ...(options.onOutput ? { onOutput: options.onOutput } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return Object.assign(result, { s: result.structured as Structured });
}

const limits = (l: Partial<SandboxSettings["limits"]>) => ({
  limits: {
    cpuSeconds: 30,
    memoryBytes: 512 * 1024 * 1024,
    processes: 64,
    fileSizeBytes: 50 * 1024 * 1024,
    openFiles: 256,
    tmpBytes: 64 * 1024 * 1024,
    ...l,
  },
});

describe("when the sandbox cannot run", () => {
  it("refuses with how to install bubblewrap, and runs nothing", async () => {
    const tool = createRunCodeTool({ sandbox: { bwrap: "/nonexistent/bin/bwrap" } });
    const marker = path.join(ws.dir, "ran");
    const err = await tool
      .execute({ language: "bash", code: `touch ${marker}`, args: [], env: {}, timeout: 5 }, { workspace: Workspace.open(ws.dir) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).code).toBe("UNAVAILABLE");
    expect((err as ToolError).message).toContain("apt-get install bubblewrap");
    expect((err as ToolError).message).toMatch(/never runs it unsandboxed/);
    expect(existsSync(marker)).toBe(false);
  });

  it("comes back from the runner as an error outcome, without asking for approval", async () => {
    const registry = new ToolRegistry();
    registry.register(createRunCodeTool({ sandbox: { bwrap: "/nonexistent/bin/bwrap", network: true } }));
    let asked = 0;
    const runner = new ToolRunner({
      registry,
      workspace: ws.dir,
      approver: async () => {
        asked++;
        return { approved: true };
      },
    });
    const out = await runner.run({ name: "run_code", args: { language: "python", code: "print(1)" } });
    await runner.close();
    expect(out.status).toBe("error");
    expect(out.error?.code).toBe("UNAVAILABLE");
    expect(out.content).toContain("bubblewrap");
    expect(asked).toBe(0);
  });
});

describe("arguments and registration", () => {
  it("validates arguments: language, timeout in seconds, env names", async () => {
    const tool = createRunCodeTool();
    expect(tool.validate({ language: "ruby", code: "1" }).valid).toBe(false);
    expect(tool.validate({ language: "bash", code: "" }).valid).toBe(false);
    expect(tool.validate({ language: "bash", code: "true", timeout: 0 }).valid).toBe(false);
    expect(tool.validate({ language: "bash", code: "true", timeout: 99_999 }).valid).toBe(false);
    expect(tool.validate({ language: "bash", code: "true", env: { "A=B": "x" } }).valid).toBe(false);
    expect(tool.validate({ language: "bash", code: "true", args: ["a\0b"] }).valid).toBe(false);
    const ok = tool.validate({ language: "bash", code: "true" });
    expect(ok.valid && ok.value).toMatchObject({ args: [], env: {}, timeout: 60 });
    expect(tool.effect).toBe("execute");
    expect(tool.description).toMatch(/sandbox/);
    expect(tool.description).toContain("Limits here: CPU time 60 s per process, memory 1024 MB per process, 128 processes");
  });

  it("is registered by the code group, configured from the sandbox section", async () => {
    const ctx = { env: {}, workspace: ws.dir, logger: silentLogger };
    const tools = await codeTools({ ...ctx, config: { sandbox: { network: false, limits: { memoryMb: 256 } } } });
    expect(tools.map((t) => t.name)).toEqual(["run_code"]);
    expect(() => codeTools({ ...ctx, config: { sandbox: { network: "yes" } } })).toThrow(/sandbox/);
    expect(() => codeTools({ ...ctx, config: { sandbox: { limits: { memoryMB: 1 } } } })).toThrow(/sandbox/);
  });
});

sandboxed("run_code", () => {
  it("runs python and returns stdout, stderr, exitCode and duration", async () => {
    const r = await call({ language: "python", code: "import sys\nprint('hello', 6*7)\nprint('warn', file=sys.stderr)" });
    expect(r.isError).toBeFalsy();
    expect(r.s).toMatchObject({ stdout: "hello 42\n", stderr: "warn\n", exitCode: 0 });
    expect(typeof r.s.duration).toBe("number");
    expect(r.content).toContain("Exit code: 0");
    expect(r.content).toContain("hello 42");
    expect(r.content).toContain("--- stderr ---\nwarn");
  });

  it("runs bash with arguments passed verbatim, never through a shell string", async () => {
    const args = ["two words", "$(touch pwned)", "'; touch pwned2; '", "`id`", "*", ""];
    const r = await call({ language: "bash", code: 'for a in "$@"; do printf "<%s>\\n" "$a"; done', args });
    expect(r.s.stdout).toBe(args.map((a) => `<${a}>\n`).join(""));
    expect(existsSync(path.join(ws.dir, "pwned"))).toBe(false);
    expect(existsSync(path.join(ws.dir, "pwned2"))).toBe(false);
  });

  it("finds the python3 on PATH even outside /usr (pyenv, venv), mounting only its own prefix", async () => {
    const found = await resolveInterpreter("python", "python3");
    expect(found).toBeDefined();
    for (const bind of found!.binds) expect(bind === os.homedir() || os.homedir().startsWith(bind + "/")).toBe(false);
    const r = await call(
      { language: "python", code: "import sys, json, ssl, sqlite3\nprint(sys.executable)" },
      { sandbox: { python: "python3" } },
    );
    expect(r.s).toMatchObject({ exitCode: 0, stdout: `${found!.path}\n` });
  });

  it("says so when the configured python does not exist", async () => {
    const err = await call({ language: "python", code: "print(1)" }, { sandbox: { python: "/nonexistent/python3" } }).catch(
      (e: unknown) => e,
    );
    expect((err as ToolError).code).toBe("UNAVAILABLE");
    expect((err as ToolError).message).toMatch(/Python is not available.*sandbox\.python/);
  });

  it("passes sys.argv to python", async () => {
    const r = await call({ language: "python", code: "import sys, json\nprint(json.dumps(sys.argv[1:]))", args: ["a", "b c"] });
    expect(JSON.parse(r.s.stdout)).toEqual(["a", "b c"]);
  });

  it("gives a minimal environment plus the call's env, and nothing of tackle's", async () => {
    process.env.TACKLE_TEST_SECRET = "do-not-leak";
    try {
      const r = await call({ language: "bash", code: "env | sort", env: { GREETING: "hi there", PATH: "/usr/bin:/bin" } });
      const env = Object.fromEntries(
        r.s.stdout
          .trim()
          .split("\n")
          .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
      );
      expect(env).toMatchObject({ GREETING: "hi there", HOME: "/tmp", LANG: "C.UTF-8", PATH: "/usr/bin:/bin" });
      expect(r.s.stdout).not.toContain("do-not-leak");
      expect(env.TACKLE_TEST_SECRET).toBeUndefined();
    } finally {
      delete process.env.TACKLE_TEST_SECRET;
    }
  });

  it("reports exit codes and stderr as a normal result", async () => {
    const py = await call({ language: "python", code: "import sys\nsys.stderr.write('bad thing\\n')\nsys.exit(3)" });
    expect(py.isError).toBeFalsy();
    expect(py.s).toMatchObject({ exitCode: 3, stderr: "bad thing\n" });
    const sh = await call({ language: "bash", code: "echo out; echo err >&2; exit 7" });
    expect(sh.s).toMatchObject({ exitCode: 7, stdout: "out\n", stderr: "err\n" });
    expect(sh.content).toContain("Exit code: 7");
    const crash = await call({ language: "python", code: "raise ValueError('boom')" });
    expect(crash.s.exitCode).toBe(1);
    expect(crash.s.stderr).toContain("ValueError: boom");
  });

  it("works in the workspace: cwd is the root, files it writes appear there, workspace modules import", async () => {
    writeFileSync(path.join(ws.dir, "helper.py"), "def f():\n    return 'from helper'\n");
    const r = await call({
      language: "python",
      code: "import os, helper\nprint(os.getcwd())\nprint(helper.f())\nopen('out.txt','w').write('written')",
    });
    expect(r.s.stdout).toBe(`${ws.dir}\nfrom helper\n`);
    expect(readFileSync(path.join(ws.dir, "out.txt"), "utf8")).toBe("written");
  });

  it("cannot read or change files that may hold secrets; the rest of the workspace is as it was", async () => {
    const at = (...p: string[]) => path.join(ws.dir, ...p);
    mkdirSync(at(".aws"));
    mkdirSync(at("deep", "er"), { recursive: true });
    writeFileSync(at(".env"), "KEY=hunter2-root\n");
    writeFileSync(at("deep", "er", ".env.local"), "KEY=hunter2-deep\n");
    writeFileSync(at(".aws", "credentials"), "hunter2-aws\n");
    writeFileSync(at("server.pem"), "hunter2-pem\n");
    writeFileSync(at("notes.txt"), "plain notes\n");
    symlinkSync(".env", at("innocent.txt"));
    symlinkSync("notes.txt", at(".env.example"));
    const r = await call({
      language: "bash",
      code: [
        'for f in .env deep/er/.env.local .aws/credentials server.pem innocent.txt; do cat "$f" 2>/dev/null || echo "no $f"; done',
        "ls -A .aws; cat .env.example notes.txt",
        "echo changed > .env 2>/dev/null || echo 'no write'; touch .aws/new 2>/dev/null || echo 'no new file'",
      ].join("\n"),
    });
    expect(r.s.stdout).not.toContain("hunter2");
    expect(r.s.stdout).toBe(
      "no .env\nno deep/er/.env.local\nno .aws/credentials\nno server.pem\nno innocent.txt\nplain notes\nplain notes\nno write\nno new file\n",
    );
    expect(readFileSync(at(".env"), "utf8")).toBe("KEY=hunter2-root\n");
    expect(readdirSync(at(".aws"))).toEqual(["credentials"]);
  });

  it("hides secrets whatever their letter case, and at any depth of installed packages, as read_file refuses them", async () => {
    const at = (...p: string[]) => path.join(ws.dir, ...p);
    const files = [
      ".ENV",
      "Deploy.KEY",
      "cert.PEM",
      "ID_RSA",
      "node_modules/app/.env",
      "node_modules/@scope/lib/.Env.local",
      "node_modules/app/config/prod/.env",
      "node_modules/@scope/lib/test/keys/server.pem",
      "node_modules/.pnpm/x@1.0.0/node_modules/x/.env",
    ];
    const plant = (list: string[]) => {
      for (const f of list) {
        mkdirSync(path.dirname(at(...f.split("/"))), { recursive: true });
        writeFileSync(at(...f.split("/")), "hunter2\n");
      }
    };
    const check = async (list: string[]) => {
      const r = await call({ language: "bash", code: list.map((f) => `cat '${f}' 2>/dev/null || echo "no ${f}"`).join("\n") });
      expect(r.s.stdout).not.toContain("hunter2");
      expect(r.s.stdout.trim().split("\n")).toEqual(list.map((f) => `no ${f}`));
    };
    plant(files);
    await check(files);
    // An install (npm stamps node_modules/.package-lock.json) brings new packages: searched again.
    const installed = ["node_modules/later/deep/id_ed25519"];
    plant(installed);
    writeFileSync(at("node_modules", ".package-lock.json"), "{}\n");
    await check([...files, ...installed]);
  });

  it("has a private /tmp that is gone afterwards", async () => {
    const name = `tackle-private-${process.pid}-${Date.now()}`;
    const r = await call({ language: "bash", code: `echo x > /tmp/${name} && cat /tmp/${name} && ls -A /tmp` });
    // Only the file and the folder holding the workspace's mount point (tests' workspaces live in /tmp).
    const wsTop = ws.dir.startsWith("/tmp/") ? [ws.dir.split("/")[2]!] : [];
    expect(r.s.stdout.split("\n").slice(0, 1)).toEqual(["x"]);
    expect(r.s.stdout.trim().split("\n").slice(1).sort()).toEqual([name, ...wsTop].sort());
    expect(existsSync(path.join("/tmp", name))).toBe(false);
  });

  it("streams output before the program ends", async () => {
    // The program waits for a file that the test writes only after it has seen streamed output:
    // without streaming it would wait until its time limit.
    // (in a folder bound into the sandbox as it is: the workspace is a copy-on-write view of it).
    const go = path.join(outside.dir, "go");
    let seen = "";
    const r = await call(
      {
        language: "python",
        code: `import os, time\nprint('ready')\nwhile not os.path.exists(${JSON.stringify(go)}):\n    time.sleep(0.02)\nprint('done')`,
        timeout: 20,
      },
      {
        sandbox: { readOnlyPaths: [outside.dir] },
        onOutput: (chunk) => {
          seen += chunk;
          if (seen.includes("ready") && !existsSync(go)) writeFileSync(go, "");
        },
      },
    );
    expect(r.s).toMatchObject({ stdout: "ready\ndone\n", exitCode: 0 });
    expect(seen).toBe("ready\ndone\n");
  });

  it("kills the whole tree at the timeout (in seconds) and keeps the partial output", async () => {
    const marker = `987.${process.pid}${Date.now() % 1000}`;
    const r = await call({ language: "bash", code: `echo started; sleep ${marker} & sleep ${marker} & echo spawned; wait`, timeout: 1 });
    expect(r.isError).toBe(true);
    expect(r.errorCode).toBe("TIMEOUT");
    expect(r.s).toMatchObject({ timedOut: true, exitCode: -1, stdout: "started\nspawned\n" });
    expect(r.content).toMatch(/Timed out after 1 s/);
    expect(r.content).toContain("started");
    expect(hostProcessesWith(marker)).toEqual([]);
  });

  it("is cancelled with its process tree when the call is aborted", async () => {
    const marker = `876.${process.pid}${Date.now() % 1000}`;
    const controller = new AbortController();
    const pending = call(
      { language: "bash", code: `sleep ${marker} & echo up; wait`, timeout: 60 },
      { signal: controller.signal, onOutput: (c) => c.includes("up") && controller.abort() },
    ).catch((e: unknown) => e);
    const err = await pending;
    expect((err as ToolError).code).toBe("CANCELLED");
    expect(hostProcessesWith(marker)).toEqual([]);
  });

  it("keeps output in bounded memory and says what was cut", async () => {
    const r = await call(
      { language: "bash", code: "head -c 20000000 /dev/zero | tr '\\0' 'a'; echo; echo THE-END" },
      { maxOutputBytes: 64 * 1024 },
    );
    expect(r.s.truncated).toBe(true);
    expect(r.s.stdout.length).toBeLessThan(70 * 1024);
    expect(r.s.stdout).toMatch(/bytes of output cut/);
    expect(r.s.stdout.endsWith("THE-END\n")).toBe(true);
  });

  it("survives output that is not UTF-8", async () => {
    const r = await call({ language: "bash", code: "printf 'ok \\377\\376 \\xc3\\x28 end\\n'" });
    expect(r.s.exitCode).toBe(0);
    expect(r.s.stdout).toMatch(/^ok .* end\n$/);
    expect(r.s.stdout).toContain("\uFFFD");
  });

  it("through the runner: auto-approved in safe mode, structured output kept", async () => {
    const registry = new ToolRegistry();
    registry.register(createRunCodeTool());
    const runner = new ToolRunner({ registry, workspace: ws.dir });
    const chunks: string[] = [];
    const out = await runner.run(
      { name: "run_code", args: { language: "bash", code: "echo via-runner" } },
      { onOutput: (c) => chunks.push(c) },
    );
    await runner.close();
    expect(out).toMatchObject({ status: "success", approvedBy: "auto" });
    expect(out.structured).toMatchObject({ stdout: "via-runner\n", exitCode: 0 });
    expect(chunks.join("")).toBe("via-runner\n");
  });

  it("through the runner: asks for approval when configuration gives the sandbox network access", async () => {
    const registry = new ToolRegistry();
    registry.register(createRunCodeTool({ sandbox: { network: true } }));
    const runner = new ToolRunner({ registry, workspace: ws.dir });
    const out = await runner.run({ name: "run_code", args: { language: "bash", code: "touch ran" } });
    await runner.close();
    expect(out.status).toBe("rejected");
    expect(existsSync(path.join(ws.dir, "ran"))).toBe(false);
  });

  it("through the runner: a timeout is a TIMEOUT error with the partial output", async () => {
    const registry = new ToolRegistry();
    registry.register(createRunCodeTool());
    const runner = new ToolRunner({ registry, workspace: ws.dir });
    const out = await runner.run({
      name: "run_code",
      args: { language: "python", code: "print('partial')\nimport time\ntime.sleep(60)", timeout: 1 },
    });
    await runner.close();
    expect(out.status).toBe("error");
    expect(out.error?.code).toBe("TIMEOUT");
    expect(out.content).toContain("partial");
    expect(out.structured).toMatchObject({ timedOut: true, stdout: "partial\n" });
  });
});

sandboxed("run_code escape attempts (each must fail)", () => {
  it("cannot write outside the workspace: /etc, the real home, /work, a sibling folder, /usr, /", async () => {
    // The real home, unless it is the temp folder (HOME=/tmp), which the sandbox replaces with its own.
    const home = os.homedir() === os.tmpdir() ? "/root" : os.homedir();
    const targets = [
      "/etc/tackle-escape",
      `${home}/tackle-escape`,
      "/work/tackle-escape",
      `${outside.dir}/tackle-escape`,
      "/usr/tackle-escape",
      "/tackle-escape",
      "/root/tackle-escape",
      "/var/tmp/tackle-escape",
      "/dev/shm/../tackle-escape",
    ];
    const code = targets.map((t) => `if echo pwned > '${t}' 2>/dev/null; then echo "WROTE ${t}"; else echo "DENIED ${t}"; fi`).join("\n");
    const r = await call({ language: "bash", code });
    expect(r.s.stdout).not.toContain("WROTE");
    expect(r.s.stdout.match(/DENIED/g)).toHaveLength(targets.length);
    for (const t of targets) expect(existsSync(t)).toBe(false);
  });

  it("cannot read a file outside the workspace (a home-like folder with a secret)", async () => {
    const fakeHome = path.join(outside.dir, "home");
    mkdirSync(path.join(fakeHome, ".ssh"), { recursive: true });
    writeFileSync(path.join(fakeHome, ".ssh", "id_rsa"), "SECRET-KEY-MATERIAL");
    const r = await call({
      language: "bash",
      code:
        `cat '${fakeHome}/.ssh/id_rsa'; ls -a '${fakeHome}'; ls -a '${os.homedir() === os.tmpdir() ? "/root" : os.homedir()}'; ` +
        `ls /work; ls /sys/class; ls /var/log; ls /run/user; echo end`,
    });
    expect(r.s.stdout).not.toContain("SECRET-KEY-MATERIAL");
    expect(r.s.stdout).toBe("end\n");
    expect(r.s.stderr).toMatch(/No such file or directory/);
  });

  it("has only the harmless devices", async () => {
    const r = await call({ language: "bash", code: "ls /dev | sort | tr '\\n' ' '" });
    const devices = r.s.stdout.trim().split(" ");
    for (const d of devices)
      expect([
        "console",
        "core",
        "fd",
        "full",
        "mqueue",
        "null",
        "ptmx",
        "pts",
        "random",
        "shm",
        "stderr",
        "stdin",
        "stdout",
        "tty",
        "urandom",
        "zero",
      ]).toContain(d);
    expect(devices).toContain("null");
  });

  it("cannot follow a symlink in the workspace that points outside", async () => {
    writeFileSync(path.join(outside.dir, "secret.txt"), "OUTSIDE-SECRET");
    symlinkSync(outside.dir, path.join(ws.dir, "link-dir"));
    symlinkSync(path.join(outside.dir, "secret.txt"), path.join(ws.dir, "link-file"));
    symlinkSync(path.join(outside.dir, "new.txt"), path.join(ws.dir, "link-new"));
    const r = await call({
      language: "python",
      code: [
        "import os",
        "for p in ['link-dir/secret.txt', 'link-file']:",
        "    try: print('READ', open(p).read())",
        "    except OSError as e: print('DENIED', p, e.errno)",
        "try:",
        "    open('link-new', 'w').write('x'); print('WROTE')",
        "except OSError as e: print('DENIED write', e.errno)",
      ].join("\n"),
    });
    expect(r.s.stdout).not.toContain("OUTSIDE-SECRET");
    expect(r.s.stdout).not.toContain("WROTE");
    expect(r.s.stdout.match(/DENIED/g)).toHaveLength(3);
    expect(existsSync(path.join(outside.dir, "new.txt"))).toBe(false);
  });

  describe("network", () => {
    let server: net.Server;
    let port: number;
    let connections = 0;
    beforeAll(async () => {
      server = net.createServer((socket) => {
        connections++;
        // A client that closes without reading the greeting makes the kernel reset the connection.
        socket.on("error", () => {});
        socket.end("HELLO-FROM-HOST\n");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as net.AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const client = (p: () => number) =>
      [
        "import socket",
        "try:",
        `    s = socket.create_connection(('127.0.0.1', ${p()}), timeout=3)`,
        "    print('CONNECTED', s.recv(100).decode().strip())",
        "except OSError as e:",
        "    print('BLOCKED', type(e).__name__)",
      ].join("\n");

    it("cannot reach a server on the host's 127.0.0.1", async () => {
      const before = connections;
      const r = await call({ language: "python", code: client(() => port) });
      expect(r.s.stdout).toMatch(/^BLOCKED/);
      expect(connections).toBe(before);
      const dns = await call({ language: "bash", code: "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo CONNECTED || echo BLOCKED" });
      expect(dns.s.stdout).toContain("BLOCKED");
      expect(connections).toBe(before);
    });

    it("reaches it when configuration allows the network (the test can tell the difference)", async () => {
      const before = connections;
      const r = await call({ language: "python", code: client(() => port) }, { sandbox: { network: true } });
      expect(r.s.stdout).toBe("CONNECTED HELLO-FROM-HOST\n");
      expect(connections).toBe(before + 1);
    });
  });

  it("a fork bomb is bounded by the process limit and leaves nothing behind", async () => {
    const r = await call({ language: "bash", code: ":(){ :|:& };:; echo bombed", timeout: 3 }, { sandbox: limits({ processes: 16 }) });
    // It ends (by itself or at the time limit) and the machine is still usable.
    expect(r.s.exitCode === -1 ? r.s.timedOut : true).toBe(true);
    const counted = await call(
      {
        language: "python",
        code: [
          "import os, time",
          "n = 0",
          "for i in range(200):",
          "    try:",
          "        pid = os.fork()",
          "    except OSError:",
          "        break",
          "    if pid == 0:",
          "        time.sleep(30); os._exit(0)",
          "    n += 1",
          "print(n)",
        ].join("\n"),
        timeout: 10,
      },
      { sandbox: limits({ processes: 16 }) },
    );
    expect(Number(counted.s.stdout.trim())).toBeGreaterThan(0);
    expect(Number(counted.s.stdout.trim())).toBeLessThanOrEqual(16 + 3);
  });

  it("a memory hog is stopped by the memory limit", async () => {
    const r = await call(
      { language: "python", code: "chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 1024 * 1024))" },
      { sandbox: limits({ memoryBytes: 256 * 1024 * 1024 }) },
    );
    expect(r.s.exitCode).not.toBe(0);
    expect(r.s.stderr).toContain("MemoryError");
  });

  it("a CPU loop is killed by the CPU limit", async () => {
    const r = await call({ language: "bash", code: "while :; do :; done", timeout: 30 }, { sandbox: limits({ cpuSeconds: 1 }) });
    expect(r.s.timedOut).toBeUndefined();
    expect(r.s.limit).toBe("cpu");
    expect(r.content).toContain("CPU time limit");
  });

  it("a huge file write is stopped by the file size limit", async () => {
    const bash = await call(
      { language: "bash", code: "head -c 10000000 /dev/zero > big.bin; echo exit=$?" },
      { sandbox: limits({ fileSizeBytes: 1024 * 1024 }) },
    );
    expect(bash.s.stdout).not.toContain("exit=0");
    expect(statSync(path.join(ws.dir, "big.bin")).size).toBeLessThanOrEqual(1024 * 1024);
    const py = await call(
      {
        language: "python",
        code: "try:\n    open('big2.bin','wb').write(b'0' * 10_000_000)\nexcept OSError as e:\n    print('STOPPED', e.errno)",
      },
      { sandbox: limits({ fileSizeBytes: 1024 * 1024 }) },
    );
    expect(py.s.stdout).toBe("STOPPED 27\n"); // EFBIG
  });

  it("the private /tmp is size-limited", async () => {
    const r = await call(
      { language: "bash", code: "head -c 10000000 /dev/zero > /tmp/fill; echo exit=$?" },
      { sandbox: limits({ tmpBytes: 1024 * 1024 }) },
    );
    expect(r.s.stdout).not.toContain("exit=0");
    expect(r.s.stderr).toMatch(/No space left/);
  });

  it("sees only its own processes in /proc (pid namespace)", async () => {
    const marker = `765.${process.pid}${Date.now() % 1000}`;
    const host: ChildProcess = spawn("sleep", [marker], { stdio: "ignore" });
    try {
      const r = await call({
        language: "bash",
        code: "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; done; ls -d /proc/[0-9]* | wc -l",
      });
      expect(r.s.stdout).not.toContain(marker);
      expect(r.s.stdout).not.toMatch(/vitest|node /);
      expect(Number(r.s.stdout.trim().split("\n").pop())).toBeLessThan(10);
    } finally {
      host.kill("SIGKILL");
    }
  });

  it("has no capabilities and cannot make new namespaces", async () => {
    const r = await call({
      language: "bash",
      code:
        "grep CapEff /proc/self/status; unshare -U true && echo UNSHARED || echo " +
        "NO-USERNS; mount -t tmpfs none /tmp 2>/dev/null && echo MOUNTED || echo NO-MOUNT",
    });
    expect(r.s.stdout).toContain("CapEff:\t0000000000000000");
    expect(r.s.stdout).toContain("NO-USERNS");
    expect(r.s.stdout).toContain("NO-MOUNT");
  });

  it("a protected name that is a symlink to outside does not bring its target in", async () => {
    writeFileSync(path.join(outside.dir, "secret.txt"), "OUTSIDE-SECRET");
    symlinkSync(outside.dir, path.join(ws.dir, ".tackle"));
    const r = await call({ language: "bash", code: "cat .tackle/secret.txt || echo NOT-VISIBLE" });
    expect(r.s.stdout).toBe("NOT-VISIBLE\n");
  });

  it.skipIf(process.arch !== "x64" && process.arch !== "arm64")(
    "dangerous system calls fail (seccomp): keyrings, bpf, userfaultfd, io_uring, perf",
    async () => {
      const nr =
        process.arch === "x64"
          ? { keyctl: 250, bpf: 321, userfaultfd: 323, io_uring_setup: 425, perf_event_open: 298, x32_bpf: 0x40000000 + 321 }
          : { keyctl: 219, bpf: 280, userfaultfd: 282, io_uring_setup: 425, perf_event_open: 241 };
      const r = await call({
        language: "python",
        code: [
          "import ctypes, json",
          "libc = ctypes.CDLL(None, use_errno=True)",
          `calls = ${JSON.stringify(nr)}`,
          "out = {}",
          "for name, n in calls.items():",
          "    rc = libc.syscall(n, 0, 0, 0, 0, 0)",
          "    out[name] = [rc, ctypes.get_errno()]",
          "print(json.dumps(out))",
        ].join("\n"),
      });
      const results = JSON.parse(r.s.stdout) as Record<string, [number, number]>;
      for (const [name, [rc, errno]] of Object.entries(results)) expect([name, rc, errno]).toEqual([name, -1, 1]);
    },
  );

  it("cannot plant git hooks or tackle configuration in the workspace", async () => {
    mkdirSync(path.join(ws.dir, ".git", "hooks"), { recursive: true });
    writeFileSync(path.join(ws.dir, ".git", "config"), "[core]\n");
    const r = await call({
      language: "bash",
      code: [
        "echo 'curl evil' > .git/hooks/pre-commit && echo WROTE-HOOK",
        "printf '[core]\\nfsmonitor = evil\\n' >> .git/config && echo WROTE-CONFIG",
        `echo '{"approval":"all"}' > tackle.config.json && echo CREATED-CONFIG`,
        "ln -s notes/later.json config.json",
        "mkdir .tackle",
        "true",
      ].join("\n"),
    });
    expect(r.s.stdout).not.toContain("WROTE");
    expect(existsSync(path.join(ws.dir, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(readFileSync(path.join(ws.dir, ".git", "config"), "utf8")).toBe("[core]\n");
    // Created in the sandbox's copy of the workspace, never applied to it.
    expect(existsSync(path.join(ws.dir, "tackle.config.json"))).toBe(false);
    for (const name of [".tackle", "tackle.config.json", "config.json"]) expect(r.content).toContain(`Never applied: ${name} (`);
    expect(() => lstatSync(path.join(ws.dir, "config.json"))).toThrow(); // a dangling symlink too
  });
});
