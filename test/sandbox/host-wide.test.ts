import { spawnSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSandboxed, sandboxAvailable } from "../../src/sandbox/sandbox.js";
import { tempDir } from "../support/tools.js";

const status = await sandboxAvailable();
const sandboxed = describe.skipIf(!status.available);
const ROOT = path.resolve(import.meta.dirname, "../..");
const isRoot = process.getuid?.() === 0;
const hasSetpriv = spawnSync("setpriv", ["--version"], { stdio: "ignore" }).status === 0;

let ws: ReturnType<typeof tempDir>;
beforeEach(() => {
  ws = tempDir("tackle-hostwide-");
  chmodSync(ws.dir, 0o777);
});
afterEach(() => ws.cleanup());

/**
 * Writes a sandboxed process must not manage, whoever starts it. Each is harmless even if it got
 * through: the domain name is the sandbox's own (a UTS namespace), pipe-max-size is written with
 * the value it already has.
 */
const HOST_WRITES = String.raw`
fails=0
try() { if sh -c "$1" 2>/dev/null; then echo "WROTE: $1"; fails=1; fi; }
try 'echo sandbox > /proc/sys/kernel/domainname'
try 'cat /proc/sys/fs/pipe-max-size > /proc/sys/fs/pipe-max-size'
try 'cat /proc/sys/kernel/core_pattern > /proc/sys/kernel/core_pattern'
try 'cat /proc/sys/vm/overcommit_memory > /proc/sys/vm/overcommit_memory'
for f in /proc/sysrq-trigger /proc/irq/default_smp_affinity; do [ -e "$f" ] && try "cat $f > $f"; done
grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status || { echo "capabilities left: $(grep CapEff /proc/self/status)"; fails=1; }
echo "fails=$fails"
`;

sandboxed("a sandbox cannot change the machine it runs on", () => {
  it(`holds for this user (${isRoot ? "root" : "not root"})`, async () => {
    const r = await runSandboxed(["/bin/sh", "-c", HOST_WRITES], { workspace: ws.dir });
    expect(r.stdout, r.stderr).toContain("fails=0");
    expect(r.stdout).not.toContain("WROTE");
  });

  it.skipIf(!isRoot || !hasSetpriv)(
    "holds for an unprivileged user too (run as nobody)",
    async () => {
      // The probe is bundled into the workspace, which nobody can read: the clone itself may sit
      // in a folder only its owner can enter (CI's is private), so nothing is loaded from it.
      const source = path.join(ws.dir, "probe-source.mjs");
      writeFileSync(
        source,
        `import { runSandboxed } from ${JSON.stringify(path.join(ROOT, "src/sandbox/sandbox.ts"))};\n` +
          `const r = await runSandboxed(["/bin/sh", "-c", ${JSON.stringify(HOST_WRITES)}], { workspace: ${JSON.stringify(ws.dir)} });\n` +
          `process.stdout.write(JSON.stringify(r));\n`,
      );
      const script = path.join(ws.dir, "probe.mjs");
      const { build } = await import("esbuild");
      await build({
        entryPoints: [source],
        outfile: script,
        bundle: true,
        platform: "node",
        format: "esm",
        logLevel: "silent",
        banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
      });
      chmodSync(script, 0o644);
      const run = spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, script], {
        cwd: ws.dir,
        encoding: "utf8",
        timeout: 120_000,
        // Its own cache folder (the sandbox's /etc goes there): the suite's is root's.
        env: { ...process.env, HOME: ws.dir, TMPDIR: ws.dir, XDG_CACHE_HOME: path.join(ws.dir, ".cache") },
      });
      expect(run.status, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout) as { stdout: string; stderr: string };
      expect(result.stdout, result.stderr).toContain("fails=0");
    },
    180_000,
  );

  it("cannot reach a unix socket left in the workspace (no network means none)", async () => {
    const socketPath = path.join(ws.dir, "agent.sock");
    const received: string[] = [];
    const server = net.createServer((c) => c.on("data", (d) => received.push(d.toString())));
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    chmodSync(socketPath, 0o777);
    try {
      const attempts = [
        `python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('${socketPath}'); s.send(b'escaped')"`,
        `bash -c 'echo escaped | nc -U ${socketPath}' || true`,
        `socat - UNIX-CONNECT:${socketPath} <<< escaped || true`,
      ];
      for (const attempt of attempts) {
        const r = await runSandboxed(["/bin/bash", "-c", attempt], { workspace: ws.dir });
        expect(r.exitCode === 0 && received.length > 0, `${attempt}: ${r.stderr}`).toBe(false);
      }
      // socketpair stays usable: programs that talk to their own children still work
      const pair = await runSandboxed(
        ["/usr/bin/python3", "-c", "import socket; a,b=socket.socketpair(); a.send(b'ok'); print(b.recv(2).decode())"],
        {
          workspace: ws.dir,
        },
      );
      expect(pair.stdout.trim(), pair.stderr).toBe("ok");
    } finally {
      server.close();
    }
    expect(received).toEqual([]);
  });
});
