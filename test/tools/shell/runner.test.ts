import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolRunner, type ToolRunnerOptions } from "../../../src/runtime/runner.js";
import type { ApprovalMode } from "../../../src/runtime/policy.js";
import { createShellTools } from "../../../src/tools/shell/index.js";
import { shellSettingsFrom } from "../../../src/tools/shell/settings.js";
import { DISGUISES } from "./corpus.js";
import { makeWorkspace } from "./helpers.js";

let ws: ReturnType<typeof makeWorkspace>;
let registry: ToolRegistry;
const { tools, jobs } = createShellTools(shellSettingsFrom({}));
const runners: ToolRunner[] = [];
const afterAllJobs: Array<{ stopAll(): Promise<void> }> = [];

beforeAll(() => {
  ws = makeWorkspace();
  registry = new ToolRegistry();
  for (const t of tools) registry.register(t);
  registry.alias("shell_exec", "shell");
});
afterAll(async () => {
  await jobs.stopAll();
  for (const j of afterAllJobs) await j.stopAll();
  for (const r of runners) await r.close();
  ws.cleanup();
});

function runner(approval: ApprovalMode, rules?: ToolRunnerOptions["rules"], approved: string[] = []): ToolRunner {
  const r = new ToolRunner({
    registry,
    workspace: ws.root,
    approval,
    ...(rules ? { rules } : {}),
    // A person who approves only what the test lists; everything else asked is rejected.
    approver: async (req) => ({ approved: approved.includes(String((req.args as { command?: string }).command)) }),
  });
  runners.push(r);
  return r;
}

describe("shell through ToolRunner", () => {
  it("runs a read-only command unasked in safe mode and returns its output", async () => {
    const out = await runner("safe").run({ name: "shell", args: { command: "cat a.txt" } });
    expect(out.status).toBe("success");
    expect(out.content).toContain("alpha");
    expect(out.approvedBy).toBe("auto");
    expect(out.structured).toMatchObject({ exitCode: 0, signal: null, stdout: "alpha\nbeta\n", stderr: "" });
  });

  it("asks for a command that is not read-only (rejected without a person)", async () => {
    const marker = path.join(ws.root, "made.txt");
    const out = await runner("safe").run({ name: "shell", args: { command: `touch ${marker}` } });
    expect(out.status).toBe("rejected");
    expect(existsSync(marker)).toBe(false);
  });

  it("resolves the shell_exec alias and bash with its 30 s default", async () => {
    const r = runner("all");
    expect((await r.run({ name: "shell_exec", args: { command: "echo hi" } })).content).toContain("hi");
    const bash = registry.get("bash")!;
    expect(bash.timeoutMs!({ command: "x" })).toBeGreaterThanOrEqual(30_000);
    expect(bash.timeoutMs!({ command: "x" })).toBeLessThan(60_000);
    expect(registry.get("shell")!.timeoutMs!({ command: "x" })).toBeGreaterThan(120_000);
  });

  it("the 2025 allowlist bypass: an allowed command followed by ; and another is not allowed", async () => {
    const marker = path.join(ws.root, "pwned.txt");
    const r = runner("safe", { allow: ["shell(git status*)", "shell(echo*)"] });
    for (const command of [
      `git status; touch ${marker}`,
      `git status && touch ${marker}`,
      `git status\ntouch ${marker}`,
      `echo $(touch ${marker})`,
      `git status | sh -c 'touch ${marker}'`,
    ]) {
      const out = await r.run({ name: "shell", args: { command } });
      expect(out.status, command).toBe("rejected");
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("an allow rule covers a command when every part is allowed", async () => {
    const r = runner("none", { allow: ["shell(npm run test:*)", "shell(echo *)"] });
    writeFileSync(path.join(ws.root, "package.json"), JSON.stringify({ name: "t", scripts: { "test:unit": "echo unit-ok" } }));
    const out = await r.run({ name: "shell", args: { command: "npm run test:unit --silent && echo done" } });
    expect(out.status).toBe("success");
    expect(out.approvedBy).toBe("config");
    expect(out.content).toContain("done");
  });

  it("an allow rule never overrides a destructive verb's question", async () => {
    const target = path.join(ws.root, "keep.txt");
    writeFileSync(target, "x");
    const out = await runner("safe", { allow: ["shell(rm *)", "shell"] }).run({ name: "shell", args: { command: "rm keep.txt" } });
    expect(out.status).toBe("rejected");
    expect(existsSync(target)).toBe(true);
  });

  it("deny rules hold in mode all, in every disguise", async () => {
    const r = runner("all", { deny: ["shell(rm:*)"] });
    const target = path.join(ws.root, "victim.txt");
    writeFileSync(target, "x");
    for (const d of DISGUISES) {
      const command = d.replace("{}", () => "rm -f victim.txt");
      const out = await r.run({ name: "shell", args: { command } });
      expect(out.status, command).toBe("rejected");
      expect(out.error?.code, command).toBe("PERMISSION_DENIED");
    }
    expect(existsSync(target)).toBe(true);
  });

  it("arithmetic on literal numbers is known before it runs: mode all with a deny rule runs it", async () => {
    const r = runner("all", { deny: ["shell(rm:*)"] });
    const out = await r.run({ name: "shell", args: { command: "echo hello-$((6*7)) $(( (7 - 10) / 2 ))" } });
    expect(out.status, out.content).toBe("success");
    expect(out.content).toContain("hello-42 -1");
    // A variable or another base is still for a person; a denied command is denied with its value worked out.
    for (const command of ["echo $((x*2))", "echo $((010))", "rm -f victim$((1)).txt"]) {
      expect((await r.run({ name: "shell", args: { command } })).status, command).toBe("rejected");
    }
  });

  it("the dangerous list is denied even in mode all with an allow-everything rule", async () => {
    const r = runner("all", { allow: ["shell"] });
    for (const command of [
      "rm -rf /",
      "rm -rf ~",
      ":(){ :|:& };:",
      "dd if=/dev/zero of=/dev/sda",
      "mkfs.ext4 /dev/sda1",
      "chmod -R 777 /",
      "echo x > /dev/sda",
      "bash -c 'rm -rf /'",
    ]) {
      const out = await r.run({ name: "shell", args: { command } });
      expect(out.status, command).toBe("rejected");
      expect(out.content, command).toMatch(/never run/);
    }
  });

  it("parse failures are never auto-approved", async () => {
    const out = await runner("safe", { allow: ["shell(ls*)"] }).run({ name: "shell", args: { command: "ls $(" } });
    expect(out.status).toBe("rejected");
  });

  it("reading a secret is not auto-approved", async () => {
    const out = await runner("safe").run({ name: "shell", args: { command: "cat .env" } });
    expect(out.status).toBe("rejected");
  });

  it("refuses a cwd outside the workspace", async () => {
    const out = await runner("all").run({ name: "shell", args: { command: "ls", cwd: "/" } });
    expect(out.status).toBe("rejected");
    expect(out.content).toMatch(/cwd/);
    const out2 = await runner("all").run({ name: "shell", args: { command: "ls", cwd: "../" } });
    expect(out2.status).toBe("rejected");
  });

  it("runs in a cwd inside the workspace", async () => {
    const out = await runner("all").run({ name: "shell", args: { command: "pwd", cwd: "src" } });
    expect(out.content.trim()).toBe(path.join(ws.root, "src"));
  });

  it("a person's 'always' remembers the exact command parts, not the command name", async () => {
    const r = new ToolRunner({ registry, workspace: ws.root, approval: "safe", approver: async () => ({ approved: true, always: true }) });
    runners.push(r);
    await r.run({ name: "shell", args: { command: "npm run test:unit --silent" } });
    expect(r.sessionAllows().map((a) => a.source)).toEqual(["shell(npm run test:unit --silent)"]);
  });

  it("streams output through onOutput while the command runs", async () => {
    const chunks: string[] = [];
    const out = await runner("all").run(
      { name: "shell", args: { command: "echo first; sleep 0.3; echo second" } },
      { onOutput: (c) => chunks.push(c) },
    );
    expect(out.status).toBe("success");
    expect(chunks.join("")).toBe("first\nsecond\n");
  });

  it("long output is cut to head and tail, and the whole of it is saved where read tools can reach it", async () => {
    const r = runner("all");
    const out = await r.run({ name: "shell", args: { command: "seq 1 300000" } });
    expect(out.status).toBe("success");
    expect(out.content.startsWith("1\n2\n3\n")).toBe(true);
    expect(out.content).toContain("300000");
    expect(out.content).toMatch(/characters of output cut/);
    const full = out.metadata?.fullOutputPath as string;
    const resolved = await r.workspace.resolve(full);
    expect(resolved.absolute).toBe(full);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(full, "utf8").split("\n").length).toBe(300001);
  });

  it("a timeout comes back as TIMEOUT with the partial output", async () => {
    const out = await runner("all").run({ name: "shell", args: { command: "echo partial-output; sleep 30", timeout: 500 } });
    expect(out.status).toBe("error");
    expect(out.error?.code).toBe("TIMEOUT");
    expect(out.content).toContain("partial-output");
    expect(out.structured).toMatchObject({ stdout: "partial-output\n" });
  });
});

describe("shell_background through ToolRunner", () => {
  it("starts, reads, lists and stops a job", async () => {
    const r = runner("all");
    const started = await r.run({
      name: "shell_background",
      args: { action: "start", command: "echo ready; while true; do sleep 0.1; done" },
    });
    expect(started.status).toBe("success");
    const id = (started.structured as { id: string }).id;
    let read;
    for (let i = 0; i < 50; i++) {
      read = await r.run({ name: "shell_background", args: { action: "read", id } });
      if (read.content.includes("ready")) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(read!.content).toContain("ready");
    expect(read!.content).toContain("running");
    const again = await r.run({ name: "shell_background", args: { action: "read", id } });
    expect(again.content).toContain("(no new output)");
    const list = await r.run({ name: "shell_background", args: { action: "list" } });
    expect(list.content).toContain(id);
    const stopped = await r.run({ name: "shell_background", args: { action: "stop", id } });
    expect(stopped.content).toMatch(/Stopped/);
    const pid = (started.structured as { pid: number }).pid;
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it("read, list and stop need no approval in safe mode; start is judged like shell", async () => {
    const r = runner("safe");
    expect((await r.run({ name: "shell_background", args: { action: "list" } })).status).toBe("success");
    expect((await r.run({ name: "shell_background", args: { action: "start", command: "npm run dev" } })).status).toBe("rejected");
    expect((await runner("all").run({ name: "shell_background", args: { action: "start", command: "rm -rf /" } })).status).toBe("rejected");
  });

  it("defaults to start when only a command is given (spec 002's parameters)", async () => {
    const out = await runner("all").run({ name: "shell_background", args: { command: "echo bg-done" } });
    expect(out.status).toBe("success");
    const id = (out.structured as { id: string }).id;
    await jobs.get(id)!.done;
    const read = await runner("all").run({ name: "shell_background", args: { action: "read", id } });
    expect(read.content).toContain("bg-done");
    expect(read.content).toContain("exited with code 0");
  });

  it("on the host (shell.sandbox off), a job that puts a server in the background keeps it until stop", async () => {
    const { processesWith, eventually } = await import("./helpers.js");
    const m = `tackle-bg-${Date.now()}`;
    const host = createShellTools(shellSettingsFrom({ shell: { sandbox: "off" } }));
    const reg = new ToolRegistry();
    for (const t of host.tools) reg.register(t);
    const r = new ToolRunner({ registry: reg, workspace: ws.root, approval: "all" });
    runners.push(r);
    afterAllJobs.push(host.jobs);
    const jobs = host.jobs;
    const started = await r.run({
      name: "shell_background",
      args: { command: `bash -c 'exec -a ${m} sleep 1000' > /dev/null 2>&1 & echo launched` },
    });
    const id = (started.structured as { id: string }).id;
    await jobs.get(id)!.done;
    // The job's shell has ended; the process it put in the background may still be starting.
    expect(await eventually(() => processesWith(m).length === 1, 30_000)).toBe(true);
    const read = await r.run({ name: "shell_background", args: { action: "read", id } });
    expect(read.content).toContain("still running");
    const stopped = await r.run({ name: "shell_background", args: { action: "stop", id } });
    expect(stopped.content).toMatch(/Stopped/);
    expect(await eventually(() => processesWith(m).length === 0)).toBe(true);
  });

  it("in the sandbox, what a job leaves in the background ends with it, and the job says so", async () => {
    const { processesWith, eventually } = await import("./helpers.js");
    const m = `tackle-bg-sandboxed-${Date.now()}`;
    const r = runner("all");
    const started = await r.run({
      name: "shell_background",
      args: { command: `bash -c 'exec -a ${m} sleep 1000' > /dev/null 2>&1 & echo launched` },
    });
    expect(started.content).toMatch(/ends when it ends/);
    await jobs.get((started.structured as { id: string }).id)!.done;
    expect(await eventually(() => processesWith(m).length === 0, 30_000)).toBe(true);
  });

  it("explains a missing id or an unknown job", async () => {
    const r = runner("all");
    expect((await r.run({ name: "shell_background", args: { action: "read" } })).error?.code).toBe("INVALID_ARGS");
    const out = await r.run({ name: "shell_background", args: { action: "stop", id: "job_999" } });
    expect(out.content).toMatch(/no background job/);
  });
});

describe("allow rules part by part", () => {
  it("two rules together allow a command whose parts each match one of them", async () => {
    const r = runner("none", { allow: ["shell(git status*)", "shell(echo *)"] });
    const out = await r.run({ name: "shell", args: { command: "git status --short 2>/dev/null; echo done" } });
    expect(out.status).toBe("success");
  });

  it("remembered 'always' approvals of a multi-part command cover the same command next time", async () => {
    let asked = 0;
    const r = new ToolRunner({
      registry,
      workspace: ws.root,
      approval: "safe",
      approver: async () => (asked++, { approved: true, always: true }),
    });
    runners.push(r);
    await r.run({ name: "shell", args: { command: "touch t1.txt && touch t2.txt" } });
    await r.run({ name: "shell", args: { command: "touch t1.txt && touch t2.txt" } });
    expect(asked).toBe(1);
  });
});
