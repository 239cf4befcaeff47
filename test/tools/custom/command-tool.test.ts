import { existsSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRegistry, loadConfig, type ApprovalRequest } from "../../../src/index.js";
import { commandArgv } from "../../../src/tools/custom/command-tool.js";
import { placeholderInCode } from "../../../src/tools/custom/placeholder-in-code.js";
import { tempDir, useTempWorkspace } from "../../support/tools.js";
import { sandboxAvailable } from "../../../src/sandbox/sandbox.js";
import { runCli } from "../../cli/run-cli.js";

const ws = useTempWorkspace();

const TOOLS = {
  say: {
    description: "Prints its text.",
    parameters: { type: "object", properties: { text: { type: "string" }, loud: { type: "boolean" } }, required: ["text"] },
    command: ["printf", "%s|%s\\n", "{text}", "{loud}"],
    effect: "read",
  },
  touch_it: {
    description: "Creates a file.",
    parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    command: ["touch", "{name}"],
    effect: "write",
  },
  slow: { description: "Sleeps.", command: ["sleep", "30"], effect: "read", timeout: 300 },
  missing: { description: "Runs a program that is not there.", command: ["tackle-no-such-program-xyz"], effect: "read" },
};

async function open(approval: "safe" | "all" = "safe", asked: ApprovalRequest[] = []) {
  writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ tools: TOOLS }));
  const registry = await createRegistry(loadConfig({ dir: ws.dir, env: {} }));
  return ws.runner({ registry, approval, approver: async (r) => (asked.push(r), { approved: false }) });
}

describe("tools declared in configuration", () => {
  it("run their program with the arguments as argv entries, never as shell text", async () => {
    const r = await open();
    const hostile = "$(touch pwned); rm -rf / `id` 'quoted' \"dq\" ~root a=~ *";
    const out = await r.run({ name: "say", args: { text: hostile, loud: true } });
    expect(out.status, out.content).toBe("success");
    expect(out.content).toBe(`${hostile}|true`);
    // A word bash would expand when unquoted: the program still gets it as written.
    for (const word of ["~root", "a=~", "~", "*"]) expect((await r.run({ name: "say", args: { text: word } })).content).toBe(`${word}|`);
    expect(existsSync(path.join(ws.dir, "pwned"))).toBe(false);
  });

  it("validate their arguments with the declared JSON Schema", async () => {
    const r = await open();
    expect((await r.run({ name: "say", args: {} })).error?.code).toBe("INVALID_ARGS");
    expect((await r.run({ name: "say", args: { text: 3 } })).error?.code).toBe("INVALID_ARGS");
  });

  it("are approved by their effect like any tool", async () => {
    const asked: ApprovalRequest[] = [];
    const r = await open("safe", asked);
    expect((await r.run({ name: "say", args: { text: "hi" } })).status).toBe("success");
    expect((await r.run({ name: "touch_it", args: { name: "x" } })).status).toBe("rejected");
    expect(asked.map((a) => a.tool)).toEqual(["touch_it"]);
    expect(existsSync(path.join(ws.dir, "x"))).toBe(false);
  });

  it("stop at their time limit, and say clearly when the program is missing", async () => {
    const r = await open("all");
    const slow = await r.run({ name: "slow", args: {} });
    expect(slow.error?.code).toBe("TIMEOUT");
    const missing = await r.run({ name: "missing", args: {} });
    expect(missing.error?.code).toBe("UNAVAILABLE");
    expect(missing.content).toContain('the program "tackle-no-such-program-xyz" was not found');
  });

  it("belong to every toolset, and a malformed declaration stops start-up with the reason", async () => {
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ tools: TOOLS }));
    const coding = await createRegistry(loadConfig({ dir: ws.dir, env: {} }), { toolset: "coding" });
    expect(coding.list().map((t) => t.name)).toContain("say");
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ tools: { bad: { description: "x", command: "ls -la" } } }));
    await expect(createRegistry(loadConfig({ dir: ws.dir, env: {} }))).rejects.toThrow(
      /"tools" in the configuration is invalid: bad\.command/,
    );
  });

  it("show in tackle tools and run through tackle call", async () => {
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ tools: TOOLS }));
    const listed = await runCli(["tools", "--workspace", ws.dir], { timeoutMs: 120_000 });
    expect(listed.stdout).toContain("say");
    const called = await runCli(["call", "say", "text=from the CLI", "--workspace", ws.dir], { timeoutMs: 120_000 });
    expect(called.stdout).toContain("from the CLI|");
  }, 300_000);
});

describe("a placeholder inside an argument of a shell or an interpreter that runs inline code is refused when the tool is declared", () => {
  const refused = [
    ["sh", "-c", "grep -rn {pattern} ."],
    ["/bin/bash", "-lc", "echo '{text}'"],
    ["env", "LC_ALL=C", "dash", "-ec", "ls {dir}"],
    ["timeout", "10", "zsh", "-c", "print -- {x}"],
    ["python3.11", "-c", "print('{x}')"],
    ["python3", "-Sc", "import os; os.listdir('{x}')"],
    ["node", "--eval", "console.log({x})"],
    ["perl", "-ne", "print if /{x}/", "f.txt"],
    ["deno", "eval", "console.log('{x}')"],
    ["awk", "-F", ":", '$1 == "{user}" { print $7 }', "/etc/passwd"],
    ["bash", "--rcfile", "/dev/null", "-c", "echo {x}"],
    ["python3", "-X", "dev", "-c", "print('{x}')"],
    ["sh", "-c", 'echo "$1"', "sh", "--name={x}"],
    ["sudo", "su", "deploy", "-c", "systemctl restart {unit}"],
    ["su", "deploy", "-lc", "systemctl restart {unit}"],
    ["su", "--command=systemctl restart {unit}"],
    ["script", "-qc", "ls {dir}", "/dev/null"],
    ["gdb", "-batch", "-ex", "shell ls {dir}"],
    ["perf", "stat", "--pre", "ls {dir}", "true"],
    ["git", "grep", "-Ocat {x}", "pattern"],
    ["entr", "-s", "ls {dir}"],
    // env -S splits "sh -c" into two arguments: the entry after them is the shell's script.
    ["env", "-S", "sh -c", "grep {pattern} ."],
    ["env", "-S", "-i LC_ALL=C bash -c", "echo {x}"],
  ];
  const splitByEnv = [
    ["env", "-S", "sh -c 'grep {pattern} .'"],
    ["env", "-S", "{cmd}"],
    ["env", "--split-string=grep {p} ."],
    ["env", "-iS", "grep {p}"],
    ["/usr/bin/env", "-Sgrep {p}"],
    ["timeout", "5", "env", "-S", "grep -e {p} ."],
  ];
  const joined = [
    ["ssh", "web1", "tail", "-n", "50", "/var/log/{name}"],
    ["ssh", "-p", "2222", "-i", "key", "web1", "ls", "{dir}"],
    ["watch", "-n", "5", "ls", "{dir}"],
    ["parallel", "gzip", ":::", "{files}"],
    ["tmux", "new", "-d", "{cmd}"],
    ["tmux", "new-window", "ls {dir}"],
    ["sg", "staff", "ls", "{dir}"],
  ];
  const variables = [
    ["make", "test", "TEST={name}"],
    ["env", "CI=1", "gmake", "-C", "build", "CFLAGS=-O2 {flags}"],
  ];
  const sedScripts = [
    ["sed", "-n", "{start},{end}p", "f.txt"],
    ["sed", "-e", "s/{from}/{to}/", "f.txt"],
    ["sed", "-ne", "/{word}/p", "f.txt"],
    ["sed", "f.txt", "-e", "s/{a}/b/"],
    ["sed", "--expression=/{x}/d", "f.txt"],
  ];
  const allowed = [
    ["sh", "-c", 'grep -rn -- "$1" .', "sh", "{pattern}"],
    ["sh", "-c", "{script}"],
    ["python3", "-c", "import sys; print(sys.argv[1])", "{x}"],
    ["python3", "tool.py", "--name={x}"],
    ["bash", "deploy.sh", "{target}"],
    ["bash", "deploy.sh", "-clean", "--name={x}"],
    ["sh", "-x", "run.sh", "-c", "a{x}"],
    ["printf", "%s\\n", "--label={x}"],
    ["awk", "-f", "prog.awk", "{file}"],
    ["git", "log", "--format={fmt}"],
    ["constructor", "-c", "{x} and more"],
    ["ssh", "{host}", "uptime"],
    ["ssh", "-l", "{user}", "web1", "uptime"],
    ["watch", "-x", "ls", "{dir}"],
    ["make", "{target}"],
    ["make", "-j{jobs}", "all"],
    ["sed", "-n", "1,10p", "src/{file}"],
    ["sed", "-f", "prog.sed", "in/{file}"],
    ["sed", "-n", "{script}", "f.txt"],
    ["sed", "-e", "1d", "--", "out/{file}"],
    ["env", "-S", "grep -e", "{pattern}", "."],
    ["env", "-S", "LC_ALL=C grep", "--", "{p}", "src/{dir}"],
    // env reads its options only up to the command: this -S is ls's.
    ["env", "-S", "ls", "-S", "{x}"],
    ["gdb", "--args", "prog", "{x}"],
    ["perf", "stat", "ls", "{dir}"],
    ["git", "log", "--oneline", "{rev}"],
  ];

  it.each(refused.map((t) => [t.join(" "), t]))("%s", (_, template) => {
    expect(placeholderInCode(template as string[])).toMatch(
      /inside an argument of \S+, which runs code given on its command line .*: a value there could run as code\. Give the value an entry of its own/,
    );
  });

  it.each(joined.map((t) => [t.join(" "), t]))("%s, where even a whole entry is shell text", (_, template) => {
    expect(placeholderInCode(template as string[])).toMatch(
      /among the arguments \S+ joins into a command a shell runs.*whole entry or not/,
    );
  });

  it.each(splitByEnv.map((t) => [t.join(" "), t]))("%s, a string env -S splits into arguments", (_, template) => {
    expect(placeholderInCode(template as string[])).toMatch(/in the string env -S splits into arguments .*whole entry or not/);
  });

  it.each(variables.map((t) => [t.join(" "), t]))("%s, a make variable its recipes run as shell text", (_, template) => {
    expect(placeholderInCode(template as string[])).toMatch(/inside the make variable .*: make's recipes run its value as shell text/);
  });

  it.each(sedScripts.map((t) => [t.join(" "), t]))("%s, a sed script (e runs a command)", (_, template) => {
    expect(placeholderInCode(template as string[])).toMatch(/inside the script sed runs .*e runs a shell command, w writes a file/);
  });

  it.each(allowed.map((t) => [t.join(" "), t]))("but not %s", (_, template) => {
    expect(placeholderInCode(template as string[])).toBeUndefined();
  });

  it("start-up stops with the reason and the way to write it; the way it names keeps a hostile value one word", async () => {
    const declared = (command: string[]) => ({
      tools: {
        find_text: {
          description: "Finds text.",
          command,
          effect: "read",
          parameters: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] },
        },
      },
    });
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify(declared(["sh", "-c", "grep -rn {pattern} ."])));
    const refusal = createRegistry(loadConfig({ dir: ws.dir, env: {} }));
    await expect(refusal).rejects.toThrow(
      /find_text\.command: it puts \{pattern\} inside an argument of sh, which runs code given on its command line \("grep -rn \{pattern\} \."\)/,
    );
    await expect(refusal).rejects.toThrow('["sh", "-c", "... \\"$1\\" ...", "sh", "{pattern}"]');
    writeFileSync(path.join(ws.dir, "notes.txt"), "hello\n");
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify(declared(["sh", "-c", 'grep -rn -- "$1" .', "sh", "{pattern}"])));
    const registry = await createRegistry(loadConfig({ dir: ws.dir, env: {} }));
    const r = ws.runner({ registry, approval: "safe", approver: async () => ({ approved: false }) });
    const found = await r.run({ name: "find_text", args: { pattern: "hello" } });
    expect(found.content).toContain("notes.txt:1:hello");
    await r.run({ name: "find_text", args: { pattern: "hello . ; echo INJECTED > pwned.txt; true" } });
    expect(existsSync(path.join(ws.dir, "pwned.txt"))).toBe(false);
  });
});

describe("a configured make's target cannot set a variable its recipes run", () => {
  it("refuses a value with = as a whole entry unless options names the parameter; a target runs", async () => {
    writeFileSync(path.join(ws.dir, "Makefile"), "ECHO = echo\nall:\n\t$(ECHO) built\n");
    const build = {
      description: "Builds a target.",
      command: ["make", "{target}"],
      effect: "read",
      parameters: { type: "object", properties: { target: { type: "string" } }, required: ["target"] },
    };
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ tools: { build } }));
    const registry = await createRegistry(loadConfig({ dir: ws.dir, env: {} }));
    const r = ws.runner({ registry, approval: "safe", approver: async () => ({ approved: false }) });
    expect((await r.run({ name: "build", args: { target: "all" } })).content).toContain("built");
    const planted = await r.run({ name: "build", args: { target: "ECHO=touch pwned; echo" } });
    expect(planted.error?.code).toBe("INVALID_ARGS");
    expect(planted.content).toMatch(
      /target "ECHO=touch pwned; echo" has "=", so make would take it as a variable, which its recipes run as shell text/,
    );
    expect(existsSync(path.join(ws.dir, "pwned"))).toBe(false);
    expect(commandArgv(["make", "{v}"], { v: "A=1" }, ["v"])).toEqual(["make", "A=1"]);
  });
});

describe("commandArgv", () => {
  it("spreads arrays, drops absent whole-entry arguments, and refuses an absent one inside an entry", () => {
    expect(commandArgv(["git", "add", "{files}"], { files: ["a b", "c"] })).toEqual(["git", "add", "a b", "c"]);
    expect(commandArgv(["ls", "{dir}"], {})).toEqual(["ls"]);
    expect(() => commandArgv(["grep", "--file={f}"], {})).toThrow(/needs "f"/);
  });
});

describe("a configured tool's values cannot become options, and its path parameters are judged as read_file's", () => {
  const GUARDED = {
    log: {
      description: "git log of a ref.",
      parameters: { type: "object", properties: { ref: { type: "string" } }, required: ["ref"] },
      command: ["git", "log", "{ref}"],
      effect: "read",
    },
    sorted: {
      description: "Sorts lines of a file.",
      parameters: { type: "object", properties: { file: { type: "string" }, flags: { type: "array", items: { type: "string" } } } },
      command: ["sort", "{flags}", "{file}"],
      effect: "read",
      paths: ["file"],
      options: ["flags"],
    },
    show: {
      description: "Prints files.",
      parameters: { type: "object", properties: { files: { type: "array", items: { type: "string" } } } },
      command: ["cat", "{files}"],
      effect: "read",
      paths: ["files"],
    },
  };

  async function guarded() {
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ tools: GUARDED }));
    writeFileSync(path.join(ws.dir, ".env"), "KEY=hunter2\n");
    writeFileSync(path.join(ws.dir, "lines.txt"), "b\na\n");
    writeFileSync(path.join(ws.dir, "-n"), "a file named like an option\n");
    const registry = await createRegistry(loadConfig({ dir: ws.dir, env: {} }));
    return ws.runner({ registry, approval: "all" });
  }

  it("refuses a value that starts with - unless the parameter is declared in options", async () => {
    const r = await guarded();
    for (const ref of ["--output=/tmp/x", "-o", "--pre=sh", "--files0-from=.env"]) {
      const out = await r.run({ name: "log", args: { ref } });
      expect(out.status, ref).toBe("error");
      expect(out.error?.code).toBe("INVALID_ARGS");
      expect(out.content).toContain('starts with "-"');
    }
    const flagged = await r.run({ name: "sorted", args: { file: "lines.txt", flags: ["-r"] } });
    expect(flagged.content).toBe("b\na");
  });

  it("resolves path parameters in the workspace: outside, /proc and secrets are refused; a file named -n is a file", async () => {
    const r = await guarded();
    for (const file of ["../outside.txt", "/proc/self/environ", "/etc/passwd"]) {
      const out = await r.run({ name: "show", args: { files: [file] } });
      expect(out.status, file).not.toBe("success");
      expect(out.content).not.toContain("root:");
    }
    const secret = await r.run({ name: "show", args: { files: ["lines.txt", ".env"] } });
    expect(secret.status).toBe("rejected");
    expect(secret.content).not.toContain("hunter2");
    const named = await r.run({ name: "show", args: { files: ["-n"] } });
    expect(named.content).toBe("a file named like an option");
  });
});

describe.runIf((await sandboxAvailable()).available)("tools declared in configuration run in the shell's sandbox", () => {
  // The configured program is the person's; what it loads of the workspace's a tool may have written unasked.
  const HELPER = `
import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
const seen = [];
try { writeFileSync(process.env.OUTSIDE, "x"); seen.push("write:ok"); } catch (e) { seen.push("write:" + e.code); }
try { seen.push("secret:" + readFileSync(".env", "utf8").trim()); } catch (e) { seen.push("secret:" + e.code); }
seen.push("net:" + await new Promise((resolve) => {
  const s = connect(Number(process.env.PORT), "127.0.0.1");
  s.on("connect", () => { s.destroy(); resolve("ok"); });
  s.on("error", (e) => resolve(e.code));
}));
console.log(seen.join(" "));
`;

  it("what the program loads of the workspace's cannot write outside it, read a secret or reach the network; sandbox false runs it on the host", async () => {
    const outside = tempDir();
    const listener = createServer((s) => s.destroy());
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const port = (listener.address() as { port: number }).port;
    try {
      writeFileSync(path.join(ws.dir, "check.mjs"), 'import "./helper.mjs";\n');
      writeFileSync(path.join(ws.dir, "helper.mjs"), HELPER);
      writeFileSync(path.join(ws.dir, ".env"), "SECRET=hunter2\n");
      const tool = { description: "Checks.", command: ["node", "check.mjs"], effect: "read" };
      writeFileSync(
        path.join(ws.dir, "tackle.config.json"),
        JSON.stringify({
          tools: {
            check: tool,
            check_host: { ...tool, sandbox: false },
            write_usr: { description: "Writes outside.", command: ["touch", "/usr/tackle-never-written"], effect: "write" },
          },
          shell: { env: { PORT: String(port) } },
        }),
      );
      const marker = path.join(outside.dir, "written");
      const registry = await createRegistry(loadConfig({ dir: ws.dir, env: {} }));
      const r = ws.runner({ registry, approval: "all" });
      process.env.OUTSIDE = marker;
      process.env.PORT = String(port);
      try {
        const boxed = await r.run({ name: "check", args: {} });
        expect(boxed.content).toMatch(/^write:(EROFS|ENOENT) secret:(ENOENT|EACCES|) net:(ECONNREFUSED|ENETUNREACH)/);
        expect(existsSync(marker)).toBe(false);
        const blocked = await r.run({ name: "write_usr", args: {} });
        expect(blocked.content).toMatch(/Read-only file system[\s\S]*"sandbox": false in its entry under "tools"/);
        expect(existsSync("/usr/tackle-never-written")).toBe(false);
        const host = await r.run({ name: "check_host", args: {} });
        expect(host.content).toMatch(/^write:ok secret:SECRET=hunter2 net:ok/);
        expect(existsSync(marker)).toBe(true);
      } finally {
        delete process.env.OUTSIDE;
        delete process.env.PORT;
      }
    } finally {
      await new Promise((resolve) => listener.close(resolve));
      outside.cleanup();
    }
  });
});
