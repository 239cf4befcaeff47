import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sandboxAvailable } from "../../../src/sandbox/sandbox.js";
import { hostReadOnlyLaunch } from "../../../src/sandbox/read-only.js";
import { mayHoldSecret } from "../../../src/process/secret-env.js";
import { runCommand } from "../../../src/tools/shell/run-command.js";
import { shellRunners } from "./helpers.js";

/*
 * tackle's own environment holds the person's credentials (GITHUB_TOKEN, cloud keys, a database
 * URL with its password). A command nobody approved (only the mode did) runs without them, as the
 * home folder's key files are hidden from it; one a person or a rule approved gets them; and no
 * value is ever on bubblewrap's command line, which every user of the machine can read.
 */

const status = await sandboxAvailable();
const sandboxed = describe.skipIf(!status.available);

const SECRETS: Record<string, string> = {
  GITHUB_TOKEN: "ghp_tackleTestValue0000000000000000000001",
  AWS_SECRET_ACCESS_KEY: "tackle-aws-test-value-2",
  PGPASSWORD: "tackle-pg-test-value-3",
  DATABASE_URL: "postgres://app:tackle-db-test-value-4@db.example/app",
  // A name that says nothing, a value in a known token format.
  DEPLOY_VALUE: "github_pat_tackleTestValue000000000000005",
};
const values = Object.values(SECRETS);

let root: string;
const { runner, close } = shellRunners(() => root);

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-secret-env-")));
  writeFileSync(path.join(root, "notes.txt"), "notes\n");
  Object.assign(process.env, SECRETS, { TACKLE_TEST_PLAIN: "plain-visible" });
});
afterAll(async () => {
  for (const name of [...Object.keys(SECRETS), "TACKLE_TEST_PLAIN"]) delete process.env[name];
  await close();
  rmSync(root, { recursive: true, force: true });
});

describe("which variables may carry a secret", () => {
  it.each([
    ["GITHUB_TOKEN", "x"],
    ["GH_TOKEN", "x"],
    ["AWS_SECRET_ACCESS_KEY", "x"],
    ["AWS_ACCESS_KEY_ID", "x"],
    ["AWS_SESSION_TOKEN", "x"],
    ["ANTHROPIC_API_KEY", "x"],
    ["OPENAI_API_KEY", "x"],
    ["PGPASSWORD", "x"],
    ["NODE_AUTH_TOKEN", "x"],
    ["npm_config__auth", "x"],
    ["GOOGLE_APPLICATION_CREDENTIALS", "/home/p/key.json"],
    ["DATABASE_URL", "postgres://app:pw@db/app"],
    ["REDIS_URL", "redis://:pw@cache:6379"],
    ["SOME_SETTING", "sk-ant-api03-abcdefghijklmnopqrstuvwx"],
    ["BUILD_OPTS", "--password=hunter2"],
  ])("%s=%s is withheld", (name, value) => expect(mayHoldSecret(name, value)).toBe(true));

  it.each([
    ["PATH", "/usr/bin:/bin"],
    ["HOME", "/home/p"],
    ["PWD", "/work"],
    ["OLDPWD", "/"],
    ["LANG", "C.UTF-8"],
    ["GIT_AUTHOR_NAME", "Person"],
    ["GIT_ASKPASS", ""],
    ["SSH_ASKPASS", ""],
    ["XAUTHORITY", "/home/p/.Xauthority"],
    ["KEYBOARD_LAYOUT", "us"],
    ["DATABASE_URL", "postgres://db.example/app"],
    ["GIT_CONFIG_KEY_0", "core.fsmonitor"],
  ])("%s=%s is passed on", (name, value) => expect(mayHoldSecret(name, value)).toBe(false));
});

sandboxed("the environment of a command in the workspace sandbox", () => {
  it("lacks tackle's secret variables when only the mode approved it, and keeps the rest", async () => {
    const r = await runner("all").run({ name: "shell", args: { command: "env; touch made.txt" } });
    expect(r.status).toBe("success");
    for (const value of values) expect(r.content).not.toContain(value);
    expect(r.content).toContain("TACKLE_TEST_PLAIN=plain-visible");
    expect(r.content).toMatch(/^PATH=/m);
    expect(r.metadata?.["withheldVariables"]).toEqual(expect.arrayContaining(Object.keys(SECRETS)));
  });

  it("has them when a rule approved it", async () => {
    const r = await runner("all", { rules: { allow: ["shell(env)"] } }).run({ name: "shell", args: { command: "env" } });
    for (const value of values) expect(r.content).toContain(value);
    expect(r.metadata?.["withheldVariables"]).toBeUndefined();
  });

  it("has them when a person approved it", async () => {
    const r = await runner("ask", { approve: true }).run({ name: "shell", args: { command: "env; touch made.txt" } });
    expect(r.status).toBe("success");
    for (const value of values) expect(r.content).toContain(value);
  });

  it("has what the configuration's shell.env sets on purpose, whatever its name", async () => {
    const r = await runner("all", { shell: { env: { NPM_TOKEN: "set-on-purpose" } } }).run({
      name: "shell",
      args: { command: "env; touch made.txt" },
    });
    expect(r.content).toContain("NPM_TOKEN=set-on-purpose");
    expect(r.content).not.toContain(SECRETS.GITHUB_TOKEN);
  });

  it("cannot read them from its own processes or bubblewrap's command line", async () => {
    const command = "cat /proc/*/environ /proc/*/cmdline 2>/dev/null | tr '\\0' '\\n'; touch made.txt";
    const unapproved = await runner("all").run({ name: "shell", args: { command } });
    for (const value of values) expect(unapproved.content).not.toContain(value);
    // Approved, the command has them in its environment, but bubblewrap's arguments hold none.
    const approved = await runner("ask", { approve: true }).run({
      name: "shell",
      args: { command: "printenv GITHUB_TOKEN | wc -c; cat /proc/*/cmdline | tr '\\0' '\\n'; touch made.txt" },
    });
    expect(approved.content).toMatch(new RegExp(`^${SECRETS.GITHUB_TOKEN!.length + 1}$`, "m"));
    expect(approved.content).toContain("--unshare-all");
    for (const value of values) expect(approved.content).not.toContain(value);
  });

  it("tells the model what was withheld when a command fails for want of it, and only then", async () => {
    const failed = await runner("all").run({
      name: "shell",
      args: { command: 'echo "GITHUB_TOKEN is not set" >&2; touch made.txt; exit 4' },
    });
    expect(failed.content).toMatch(/withheld from this command \(.*GITHUB_TOKEN.*\): only a command a person or a rule approved gets them/);
    const unrelated = await runner("all").run({
      name: "shell",
      args: { command: 'echo "SyntaxError: Unexpected token )" >&2; touch made.txt; exit 1' },
    });
    expect(unrelated.content).not.toContain("withheld");
    const passed = await runner("all").run({ name: "shell", args: { command: "echo unauthorized; touch made.txt" } });
    expect(passed.content).not.toContain("withheld");
  });

  it("lacks them in a background job only the mode approved", async () => {
    const r = runner("all");
    const started = await r.run({
      name: "shell_background",
      args: { action: "start", command: "env > bg-env.tmp && mv bg-env.tmp bg-env.txt" },
    });
    expect(started.status).toBe("success");
    const file = path.join(root, "bg-env.txt");
    while (!existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 50));
    const text = readFileSync(file, "utf8");
    expect(text).toContain("TACKLE_TEST_PLAIN=plain-visible");
    for (const value of values) expect(text).not.toContain(value);
  });
});

sandboxed("a language server's environment", () => {
  it("lacks tackle's secret variables", async () => {
    const launch = await hostReadOnlyLaunch(["/usr/bin/env"], { root });
    expect(launch).toBeDefined();
    expect(launch!.args.join(" ")).not.toContain(SECRETS.GITHUB_TOKEN);
    const r = await runCommand({
      command: "env",
      cwd: root,
      env: launch!.env,
      timeoutMs: 30_000,
      outputName: "lsp-env",
      argv: () => launch!,
    });
    expect(r.output).toContain("TACKLE_TEST_PLAIN=plain-visible");
    for (const value of values) expect(r.output).not.toContain(value);
  });
});
