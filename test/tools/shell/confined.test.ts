import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { sandboxAvailable } from "../../../src/sandbox/sandbox.js";
import { createShellTools } from "../../../src/tools/shell/index.js";
import { runCommand } from "../../../src/tools/shell/run-command.js";
import { readOnlyLaunch } from "../../../src/sandbox/read-only.js";
import { shellSettingsFrom } from "../../../src/tools/shell/settings.js";
import type { Workspace } from "../../../src/workspace/workspace.js";
import { makeWorkspace } from "./helpers.js";

const status = await sandboxAvailable();
const sandboxed = describe.skipIf(!status.available);

let ws: { root: string; workspace: Workspace; cleanup: () => void };
let server: http.Server;
let port = 0;
let hits = 0;
beforeAll(async () => {
  ws = makeWorkspace();
  server = http.createServer((_req, res) => {
    hits++;
    res.end("reached");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  ws.cleanup();
});

/** Runs `command` as a read-only judgement would have it run: confined. */
async function runConfined(command: string) {
  const launch = await readOnlyLaunch(["/bin/bash", "-c", command], { root: ws.root, cwd: ws.root });
  expect(launch).toBeDefined();
  return runCommand({ command, cwd: ws.root, env: process.env, timeoutMs: 30_000, outputName: "confined", argv: () => launch! });
}

sandboxed("a command judged read-only runs where it cannot act", () => {
  // As if the judgement had been wrong about each of these.
  const writes: Array<[string, string]> = [
    ["echo pwned > a.txt", "a.txt"],
    ["echo pwned >> README.md", "README.md"],
    ["sed -i s/alpha/pwned/ a.txt", "a.txt"],
    ["cp README.md a.txt", "a.txt"],
    ["python3 -c \"open('a.txt','w').write('pwned')\"", "a.txt"],
    ['perl -e \'open(F,">a.txt"); print F "pwned"\'', "a.txt"],
  ];
  for (const [command, file] of writes) {
    it(`cannot change the workspace: ${command}`, async () => {
      const before = readFileSync(path.join(ws.root, file), "utf8");
      await runConfined(command);
      expect(readFileSync(path.join(ws.root, file), "utf8")).toBe(before);
    });
  }

  it("cannot create files in the workspace or outside it", async () => {
    for (const target of [
      "new.txt",
      "src/new.ts",
      ".git-hook",
      "/tmp/tackle-confined-escape",
      `${process.env.HOME ?? "/root"}/tackle-confined-escape`,
    ]) {
      await runConfined(`touch ${target} || true; mkdir -p ${target}.d || true`);
      const absolute = path.resolve(ws.root, target);
      expect(existsSync(absolute), target).toBe(false);
      expect(existsSync(`${absolute}.d`), target).toBe(false);
    }
  });

  it("cannot reach the network", async () => {
    const before = hits;
    const r = await runConfined(`python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:${port}').read())"`);
    expect(r.stdout).not.toContain("reached");
    expect(hits).toBe(before);
  });

  it("still reads: cat, ls, grep and git status give their usual answers", async () => {
    execFileSync("git", ["init", "-q"], { cwd: ws.root });
    expect((await runConfined("cat a.txt")).stdout).toBe("alpha\nbeta\n");
    expect((await runConfined("ls src")).stdout).toBe("x.ts\n");
    expect((await runConfined("grep -n beta a.txt")).stdout).toBe("2:beta\n");
    const git = await runConfined("git status --short");
    expect(git.exitCode, git.stderr).toBe(0);
  });

  it("the shell tool confines read-only commands and says so; others run as before", async () => {
    const registry = new ToolRegistry();
    registry.registerAll(createShellTools(shellSettingsFrom({})).tools);
    const runner = new ToolRunner({ registry, workspace: ws.root, approval: "all", cache: false });
    try {
      const read = await runner.run({ name: "shell", args: { command: "cat a.txt" } });
      expect(read.content).toContain("alpha");
      expect(read.metadata?.confined).toBe(true);
      const write = await runner.run({ name: "shell", args: { command: "echo made > made.txt" } });
      expect(write.status).toBe("success");
      expect(write.metadata?.confined).toBe(false);
      expect(readFileSync(path.join(ws.root, "made.txt"), "utf8")).toBe("made\n");
    } finally {
      await runner.close();
    }
  });

  it("a confined or sandboxed command has tackle's environment, though bubblewrap itself is given none", async () => {
    const saved = { LANG: process.env["LANG"], TACKLE_TEST_KEPT: process.env["TACKLE_TEST_KEPT"] };
    process.env["LANG"] = "C.UTF-8";
    process.env["TACKLE_TEST_KEPT"] = "kept-value";
    const registry = new ToolRegistry();
    registry.registerAll(createShellTools(shellSettingsFrom({})).tools);
    const runner = new ToolRunner({ registry, workspace: ws.root, approval: "all", cache: false });
    try {
      // locale reads LANG from its environment: without it, it says LANG= and the POSIX locale.
      const read = await runner.run({ name: "shell", args: { command: "locale" } });
      expect(read.metadata?.confined).toBe(true);
      expect(String(read.content)).toContain("LANG=C.UTF-8");
      const write = await runner.run({ name: "shell", args: { command: "echo $PAGER $GIT_CONFIG_COUNT $TACKLE_TEST_KEPT > env.txt" } });
      expect(write.status).toBe("success");
      expect(readFileSync(path.join(ws.root, "env.txt"), "utf8")).toBe("cat 2 kept-value\n");
    } finally {
      await runner.close();
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it("can be switched off in configuration (shell.confineReadOnly: false)", async () => {
    writeFileSync(path.join(ws.root, "b.txt"), "b\n");
    const registry = new ToolRegistry();
    registry.registerAll(createShellTools(shellSettingsFrom({ shell: { confineReadOnly: false } })).tools);
    const runner = new ToolRunner({ registry, workspace: ws.root, approval: "all", cache: false });
    try {
      const read = await runner.run({ name: "shell", args: { command: "cat b.txt" } });
      expect(read.metadata?.confined).toBe(false);
    } finally {
      await runner.close();
    }
  });
});
