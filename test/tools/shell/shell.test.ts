import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import type { ToolExecutionResult } from "../../../src/core/result.js";
import { ToolError } from "../../../src/core/errors.js";
import { createShellTools } from "../../../src/tools/shell/index.js";
import { shellSettingsFrom } from "../../../src/tools/shell/settings.js";
import { eventually, makeWorkspace, processesWith } from "./helpers.js";

let ws: ReturnType<typeof makeWorkspace>;
const { tools, jobs } = createShellTools(
  shellSettingsFrom({ shell: { promptTimeoutMs: 400, inactivityTimeoutMs: 1500, killGraceMs: 300 } }),
);
const shell = tools.find((t) => t.name === "shell")!;

beforeAll(() => {
  ws = makeWorkspace();
});
afterAll(async () => {
  await jobs.stopAll();
  ws.cleanup();
});

type Structured = { stdout: string; stderr: string; exitCode: number | null; signal: string | null; durationMs: number };

async function run(
  command: string,
  extra: { timeout?: number; cwd?: string } = {},
  ctx: Record<string, unknown> = {},
): Promise<ToolExecutionResult> {
  return shell.execute({ command, ...extra }, { workspace: ws.workspace, ...ctx });
}

const marker = () => `tackle-test-${randomUUID().slice(0, 8)}`;

describe("shell behaviour", () => {
  it("keeps tackle's own secrets (server tokens, the shared store's address) from commands", async () => {
    const saved = { ...process.env };
    process.env.TACKLE_STORE = "postgres://tackle:store-secret@127.0.0.1/db";
    process.env.TACKLE_SERVE_TOKEN = "serve-secret";
    process.env.TACKLE_MCP_TOKEN = "mcp-secret";
    process.env.TACKLE_KEPT = "kept";
    try {
      const r = await run("env");
      const out = (r.structured as Structured).stdout;
      expect(out).not.toMatch(/store-secret|serve-secret|mcp-secret/);
      expect(out).toContain("TACKLE_KEPT=kept");
    } finally {
      for (const key of ["TACKLE_STORE", "TACKLE_SERVE_TOKEN", "TACKLE_MCP_TOKEN", "TACKLE_KEPT"]) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  });

  it("returns stdout, stderr, exit code and signal", async () => {
    const r = await run("echo out; echo err >&2; exit 3");
    expect(r.structured).toMatchObject({ stdout: "out\n", stderr: "err\n", exitCode: 3, signal: null });
    expect(r.content).toContain("[exit code 3]");
    expect(r.isError).toBeUndefined();
  });

  it("reports a signal that ended the command", async () => {
    const r = await run("kill -SEGV $$");
    expect((r.structured as Structured).signal).toBe("SIGSEGV");
    expect(r.content).toContain("SIGSEGV");
  });

  it("streams output before the process ends", async () => {
    // The command waits for a file that the test creates only when the first chunk arrives.
    const go = path.join(ws.root, `go-${randomUUID()}`);
    const r = await run(
      `echo first; while [ ! -e ${go} ]; do sleep 0.02; done; echo second`,
      { timeout: 10_000 },
      {
        onOutput: (chunk: string) => {
          if (chunk.includes("first")) writeFileSync(go, "");
        },
      },
    );
    expect(r.metadata?.ended).toBe("exit");
    expect(r.content).toContain("second");
  });

  it("kills the whole tree on timeout, with the partial output kept", async () => {
    const m = marker();
    const r = await run(
      `echo before; bash -c 'exec -a ${m} sleep 1000' & setsid bash -c 'exec -a ${m}-escaped sleep 1000' & exec -a ${m}-main sleep 1000`,
      { timeout: 700 },
    );
    expect(r.isError).toBe(true);
    expect(r.errorCode).toBe("TIMEOUT");
    expect(r.content).toContain("before");
    expect(await eventually(() => processesWith(m).length === 0)).toBe(true);
  });

  it("kills the whole tree on abort", async () => {
    const m = marker();
    const controller = new AbortController();
    const pending = run(
      `echo started; bash -c 'exec -a ${m} sleep 1000' & exec -a ${m}-main sleep 1000`,
      { timeout: 60_000 },
      {
        signal: controller.signal,
        onOutput: (c: string) => {
          if (c.includes("started")) setTimeout(() => controller.abort(), 100);
        },
      },
    );
    await expect(pending).rejects.toSatisfy(
      (e: unknown) => e instanceof ToolError && e.code === "CANCELLED" && e.message.includes("started"),
    );
    expect(await eventually(() => processesWith(m).length === 0)).toBe(true);
  });

  it("processes left in the background die with the command", async () => {
    const m = marker();
    const r = await run(`bash -c 'exec -a ${m} sleep 1000' > /dev/null 2>&1 & echo done`);
    expect(r.content).toContain("done");
    expect(await eventually(() => processesWith(m).length === 0)).toBe(true);
  });

  it("an interactive read ends at once: stdin is closed", async () => {
    const r = await run('read -r answer; echo "got:[$answer] status:$?"', { timeout: 20_000 });
    expect(r.metadata?.ended).toBe("exit");
    expect(r.content).toContain("got:[] status:1");
  });

  it("a command stuck at a prompt is stopped early, saying it looked interactive", async () => {
    const r = await run("printf 'Overwrite file? [y/N] '; sleep 30", { timeout: 20_000 });
    expect(r.errorCode).toBe("TIMEOUT");
    expect(r.metadata?.ended).toBe("inactive");
    expect(r.content).toMatch(/waiting for input/);
    expect(r.content).toContain("Overwrite file?");
  });

  it("a command silent for too long is stopped by the inactivity limit", async () => {
    const r = await run("echo working; sleep 30", { timeout: 20_000 });
    expect(r.metadata?.ended).toBe("inactive");
    expect(r.content).toMatch(/printed nothing/);
  });

  it("decodes non-UTF-8 output safely, and multi-byte characters split across writes", async () => {
    const r = await run("printf 'bad:\\xff\\xfe:end\\n'; printf '\\xe2\\x82'; sleep 0.1; printf '\\xac\\n'");
    expect(r.content).toContain("bad:\uFFFD\uFFFD:end");
    expect(r.content).toContain("€");
  });

  it("keeps 100 MB of output in bounded memory, with head, tail, a notice and the full file", async () => {
    const before = process.memoryUsage().rss;
    let peak = before;
    let chunks = 0;
    const r = await run(
      "echo FIRST-LINE; head -c 100000000 /dev/zero | tr '\\0' 'x'; echo; echo LAST-LINE",
      { timeout: 120_000 },
      {
        onOutput: () => {
          if (++chunks % 64 === 0) peak = Math.max(peak, process.memoryUsage().rss);
        },
      },
    );
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(r.content.startsWith("FIRST-LINE")).toBe(true);
    expect(r.content).toContain("LAST-LINE");
    expect(r.content.length).toBeLessThan(60_000);
    expect(r.content).toMatch(/characters of output cut/);
    const full = r.metadata?.fullOutputPath as string;
    expect(existsSync(full)).toBe(true);
    expect(statSync(full).size).toBeGreaterThan(100_000_000);
    expect(r.content).toContain(full);
    rmSync(path.dirname(full), { recursive: true, force: true });
    // 100 MB of text is 200 MB as JS strings; what stays must be a small fraction of it.
    expect(peak - before).toBeLessThan(80 * 1024 * 1024);
  });

  it("refuses a cwd outside the workspace, through a symlink, or that is a file", async () => {
    await expect(run("ls", { cwd: "/" })).rejects.toMatchObject({ code: "INVALID_PATH" });
    await expect(run("ls", { cwd: "../" })).rejects.toMatchObject({ code: "INVALID_PATH" });
    const { symlinkSync } = await import("node:fs");
    symlinkSync("/", path.join(ws.root, "rootlink"));
    await expect(run("ls", { cwd: "rootlink" })).rejects.toMatchObject({ code: "INVALID_PATH" });
    await expect(run("ls", { cwd: "a.txt" })).rejects.toMatchObject({ code: "INVALID_PATH" });
    await expect(run("ls", { cwd: "missing" })).rejects.toMatchObject({ code: "FILE_NOT_FOUND" });
  });

  it("runs with a non-interactive environment", async () => {
    const r = await run("echo $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $TERM $CI $NO_COLOR; [ -t 0 ] && echo tty || echo no-tty");
    expect(r.content).toContain("cat cat 0 dumb 1 1");
    expect(r.content).toContain("no-tty");
  });

  it("plain commands run without bash but read the same: a missing program exits 127", async () => {
    const r = await run("no-such-program-xyz --flag");
    expect(r.structured).toMatchObject({ exitCode: 127 });
    expect(r.content).toContain("command not found");
    const viaBash = await run("no-such-program-xyz --flag 2>&1; true");
    expect(viaBash.content).toContain("command not found");
    expect((await run("ls -a src")).content).toContain("x.ts");
  });

  it("says when there was no output", async () => {
    expect((await run("true")).content).toBe("(no output)");
  });
});
