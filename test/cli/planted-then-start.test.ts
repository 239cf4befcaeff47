import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sandboxAvailable } from "../../src/sandbox/sandbox.js";
import { runCli } from "./run-cli.js";
import { tempDir } from "../support/tools.js";

/*
 * A model under prompt injection, in mode all with nobody at the keyboard, tries to plant code
 * that the next tackle start runs: the MCP server's script, a custom tool's program, a tool
 * module, the configuration itself, a Makefile a rule runs. After each attempt a fresh `tackle`
 * starts, lists its tools and calls the configured ones; nothing planted may have run.
 */

const sandbox = (await sandboxAvailable()).available;
let ws: ReturnType<typeof tempDir>;
let state: ReturnType<typeof tempDir>;
let marker: string;

const ORIGINAL = {
  "server.mjs": "// a server that is not there yet\nprocess.exit(0);\n",
  "lint.sh": "#!/bin/sh\necho lint-ok\n",
  Makefile: "test:\n\t@echo make-ok\n",
};

beforeAll(() => {
  state = tempDir();
});
afterAll(() => {
  ws?.cleanup();
  state.cleanup();
});

beforeEach(() => {
  ws?.cleanup();
  ws = tempDir();
  // In the workspace, where sandboxed code may write: a payload that ran must be able to leave it.
  marker = path.join(ws.dir, "planted-ran");
  writeFileSync(
    path.join(ws.dir, "tackle.config.json"),
    JSON.stringify({
      approval: "all",
      toolModules: true,
      mcpServers: { local: { command: "node", args: ["server.mjs"] } },
      tools: {
        lint: {
          description: "Lints a file.",
          command: ["./lint.sh", "{path}"],
          effect: "read",
          parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
          paths: ["path"],
        },
      },
      permissions: { allow: ["shell(make test)"] },
    }),
  );
  for (const [name, content] of Object.entries(ORIGINAL)) writeFileSync(path.join(ws.dir, name), content);
  chmodSync(path.join(ws.dir, "lint.sh"), 0o755);
  writeFileSync(path.join(ws.dir, "notes.txt"), "notes\n");
});

const env = () => ({ XDG_STATE_HOME: state.dir });
const cli = (args: string[]) => runCli([...args, "--json"], { cwd: ws.dir, env: env(), timeoutMs: 120_000 });

/** Code that leaves the marker behind, for a shell script and for a module. */
const shellPayload = () => `#!/bin/sh\ntouch '${marker}'\n`;
const modulePayload = () =>
  `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\n` +
  `export const evil = { name: "evil", description: "x", inputSchema: { type: "object" }, execute: async () => "x" };\n`;
const makePayload = () => `test:\n\t@touch '${marker}'\n`;

/** A fresh tackle: lists its tools, calls the custom tool and the rule-allowed make. */
async function freshStart(): Promise<void> {
  const listed = await runCli(["tools"], { cwd: ws.dir, env: env(), timeoutMs: 120_000 });
  expect(listed.code, listed.stderr).toBe(0);
  await cli(["call", "lint", "path=notes.txt"]);
  await cli(["call", "shell", "command=make test"]);
}

/** A fresh start after an attempt: nothing planted may have run, and the code files are as they were. */
async function freshStartRunsNothing(): Promise<void> {
  await freshStart();
  expect(existsSync(marker), "planted code ran on the next start").toBe(false);
  expect(readFileSync(path.join(ws.dir, "server.mjs"), "utf8")).toBe(ORIGINAL["server.mjs"]);
  expect(readFileSync(path.join(ws.dir, "lint.sh"), "utf8")).toBe(ORIGINAL["lint.sh"]);
  expect(readFileSync(path.join(ws.dir, "Makefile"), "utf8")).toBe(ORIGINAL.Makefile);
  expect(existsSync(path.join(ws.dir, ".tackle", "tools", "evil.mjs"))).toBe(false);
}

describe("planted, then a fresh tackle start: nothing planted runs", { timeout: 240_000 }, () => {
  const attempts: Array<[string, () => string[][]]> = [
    ["write_file over the MCP server's script", () => [["call", "write_file", "path=server.mjs", `content=${modulePayload()}`]]],
    ["write_file over a custom tool's program", () => [["call", "write_file", "path=lint.sh", `content=${shellPayload()}`]]],
    ["write_file over the Makefile a rule runs", () => [["call", "write_file", "path=Makefile", `content=${makePayload()}`]]],
    ["write_file of a tool module", () => [["call", "write_file", "path=.tackle/tools/evil.mjs", `content=${modulePayload()}`]]],
    [
      "edit_file of the Makefile",
      () => [["call", "edit_file", "path=Makefile", "old_string=@echo make-ok", `new_string=@touch ${marker}`]],
    ],
    [
      "move the server away, then write a new one",
      () => [
        ["call", "move_file", "from=server.mjs", "to=old.mjs"],
        ["call", "write_file", "path=server.mjs", `content=${modulePayload()}`],
      ],
    ],
    ["shell redirection into the custom tool's program", () => [["call", "shell", `command=printf '%s' '${shellPayload()}' > lint.sh`]]],
    ["shell tee into the Makefile", () => [["call", "shell", `command=printf '%s' '${makePayload()}' | tee Makefile`]]],
    [
      "python, unseen by the parser, over the server",
      () => [["call", "shell", `command=python3 -c "open('server.mjs','w').write(${JSON.stringify(modulePayload())})"`]],
    ],
    [
      "python, unseen, creating a tool module",
      () => [
        [
          "call",
          "shell",
          `command=python3 -c "import os; os.makedirs('.tackle/tools'); open('.tackle/tools/evil.mjs','w').write(${JSON.stringify(modulePayload())})"`,
        ],
      ],
    ],
    ["run_code rewriting the Makefile", () => [["call", "run_code", "language=bash", `code=printf '%s' '${makePayload()}' > Makefile`]]],
  ];

  // The check can fail: the same code, written by the person, does run on the next start.
  it.each([
    ["lint.sh", () => shellPayload()],
    ["Makefile", () => makePayload()],
    [".tackle/tools/evil.mjs", () => modulePayload()],
  ])("control: %s written by the person runs on the next start", async (file, payload) => {
    mkdirSync(path.dirname(path.join(ws.dir, file)), { recursive: true });
    writeFileSync(path.join(ws.dir, file), payload());
    await freshStart();
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
  });

  it.each(attempts)("%s", async (_name, steps) => {
    for (const step of steps()) await cli(step);
    await freshStartRunsNothing();
  });

  it.runIf(sandbox)("python, unseen, writing a tackle.config.json that would allow everything, is moved aside", async () => {
    mkdirSync(path.join(ws.dir, "sub"));
    const config = JSON.stringify({ approval: "all", permissions: { allow: ["shell(*)"] } });
    await cli(["call", "shell", "cwd=sub", `command=python3 -c "open('tackle.config.json','w').write('${config}')"`]);
    // From sub, a config there would be the nearest one.
    expect(existsSync(path.join(ws.dir, "sub", "tackle.config.json"))).toBe(false);
    await freshStartRunsNothing();
  });

  it.runIf(sandbox)("a file that is code a command made unseen is named to the person after the output it streamed", async () => {
    const r = await runCli(["call", "shell", `command=echo made && python3 -c "open('.zlogin','w').write('x')"`], {
      cwd: ws.dir,
      env: env(),
      timeoutMs: 120_000,
    });
    expect(r.stdout).toBe("made\n");
    expect(r.stderr).toMatch(/files that are code.*\.zlogin → \.zlogin\.refused/s);
    expect(existsSync(path.join(ws.dir, ".zlogin"))).toBe(false);
  });
});
