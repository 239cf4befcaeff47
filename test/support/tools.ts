import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readFile, writeFile } from "node:fs/promises";
import type { ToolContext } from "../../src/core/tool.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { z } from "zod";
import { defineTool } from "../../src/core/define-tool.js";
import { ToolError } from "../../src/core/errors.js";
import { afterEach, beforeEach } from "vitest";
import { ToolRunner, type ToolRunnerOptions } from "../../src/runtime/runner.js";

/** A fresh temporary directory (real path) and a function that removes it. */
export function tempDir(prefix = "tackle-test-"): { dir: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A fresh temporary workspace for each test of the calling file (or describe), and the runners a
 * test opens on it, closed and removed after the test: `ws.dir`, `ws.runner({ registry })`.
 */
export function useTempWorkspace() {
  let ws: ReturnType<typeof tempDir>;
  const runners: ToolRunner[] = [];
  beforeEach(() => (ws = tempDir()));
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.close()));
    ws.cleanup();
  });
  return {
    get dir() {
      return ws.dir;
    },
    runner(options: Omit<ToolRunnerOptions, "workspace">): ToolRunner {
      const runner = new ToolRunner({ workspace: ws.dir, ...options });
      runners.push(runner);
      return runner;
    },
  };
}

/** Small real tools for exercising the runner. */
export function testTools() {
  const calls = { echo: 0, flaky: 0, read: 0, write: 0, fail: 0 };
  const echo = defineTool({
    name: "echo",
    description: "Repeats text.",
    effect: "read",
    input: z.object({ text: z.string().describe("What to repeat"), times: z.number().int().min(1).default(1) }),
    execute: async ({ text, times }) => {
      calls.echo++;
      return text.repeat(times);
    },
  });
  const readNote = defineTool({
    name: "read_note",
    description: "Reads a note in the workspace.",
    effect: "read",
    input: z.object({ path: z.string() }),
    scope: { kind: "path", subjects: async ({ path: p }, ctx) => [(await ctx.workspace.resolve(p)).relative] },
    access: async ({ path: p }, ctx) => ({ reads: [(await ctx.workspace.resolve(p)).relative] }),
    execute: async ({ path: p }, ctx) => {
      calls.read++;
      return readFile((await ctx.workspace.resolve(p)).absolute, "utf8");
    },
  });
  const writeNote = defineTool({
    name: "write_note",
    description: "Writes a note in the workspace.",
    effect: "write",
    input: z.object({ path: z.string(), text: z.string(), delayMs: z.number().default(0) }),
    scope: { kind: "path", subjects: async ({ path: p }, ctx) => [(await ctx.workspace.resolve(p, { write: true })).relative] },
    access: async ({ path: p }, ctx) => ({ writes: [(await ctx.workspace.resolve(p, { write: true })).relative] }),
    preview: ({ path: p, text }) => `+++ ${p}\n+${text}`,
    execute: async ({ path: p, text, delayMs }, ctx) => {
      calls.write++;
      const target = await ctx.workspace.resolve(p, { write: true });
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      const before = await readFile(target.absolute, "utf8").catch(() => "");
      await writeFile(target.absolute, before + text);
      return {
        content: `wrote ${text.length} characters to ${target.relative}`,
        changedPaths: [{ path: target.relative, operation: "modified" }],
      };
    },
  });
  const flaky = defineTool({
    name: "flaky",
    description: "Fails recoverably until it has been called `failures` times.",
    effect: "read",
    input: z.object({
      failures: z.number().int(),
      code: z.enum(["NETWORK_ERROR", "EXECUTION_ERROR"]).default("NETWORK_ERROR"),
      key: z.string().default(""),
    }),
    execute: async ({ failures, code }) => {
      calls.flaky++;
      if (calls.flaky <= failures) throw new ToolError(code, `failure ${calls.flaky}`);
      return `ok after ${calls.flaky}`;
    },
  });
  const slow = defineTool({
    name: "slow",
    description: "Prints, then waits until aborted or `ms` pass.",
    effect: "read",
    cacheable: false,
    input: z.object({ ms: z.number(), limitMs: z.number().optional() }),
    timeoutMs: ({ limitMs }) => limitMs,
    execute: async ({ ms }, ctx) => {
      ctx.onOutput("started\n");
      ctx.onProgress({ progress: 1, total: 2, message: "half" });
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, ms);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(t);
          reject(ctx.signal.reason);
        });
      });
      return "finished";
    },
  });
  const fail = defineTool({
    name: "fail",
    description: "Fails in the way asked.",
    effect: "write",
    input: z.object({ how: z.enum(["throw", "enoent", "isError", "toolError", "string"]) }),
    execute: async ({ how }) => {
      calls.fail++;
      if (how === "throw") throw new Error("boom");
      if (how === "enoent") await readFile("/definitely/not/here");
      if (how === "isError") return { content: "it went wrong", isError: true, errorCode: "PERMISSION_DENIED" as const };
      if (how === "toolError") throw new ToolError("INVALID_PATH", "path is outside");
      // eslint-disable-next-line no-throw-literal
      throw "a string";
    },
  });
  const big = defineTool({
    name: "big",
    description: "Returns many lines.",
    effect: "read",
    input: z.object({ lines: z.number().int(), untrusted: z.boolean().default(false) }),
    execute: async ({ lines, untrusted }) => ({
      content: Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join("\n"),
      ...(untrusted ? { untrusted: { source: "https://example.test/page" } } : {}),
    }),
  });
  return { calls, tools: [echo, readNote, writeNote, flaky, slow, fail, big] };
}

/** A temporary folder holding `ws` (the workspace) and `ws-evil` / `outside` beside it. */
export interface BoundarySandbox {
  base: string;
  ws: string;
  evil: string;
  outside: string;
  workspace: Workspace;
  ctx: Partial<ToolContext>;
  /** Writes files (creating folders) under the workspace: `{ "src/a.ts": "..." }`. */
  write: (files: Record<string, string | Buffer>) => void;
  cleanup: () => void;
}

/** A workspace with a sibling sharing its prefix and a folder outside: what boundary tests need. */
export function boundarySandbox(prefix: string): BoundarySandbox {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  const ws = path.join(base, "ws");
  const evil = path.join(base, "ws-evil");
  const outside = path.join(base, "outside");
  for (const d of [ws, evil, outside]) mkdirSync(d);
  const workspace = Workspace.open(ws);
  const write = (files: Record<string, string | Buffer>) => {
    for (const [rel, content] of Object.entries(files)) {
      const file = path.join(ws, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  };
  return { base, ws, evil, outside, workspace, ctx: { workspace }, write, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

/** The ToolError a promise rejects with (fails when it resolves or rejects with something else). */
export async function failure(p: Promise<unknown>): Promise<ToolError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error("expected a ToolError");
}

/**
 * The environment for an MCP server a test spawns through an SDK transport: the SDK passes only a
 * few variables by default, and tackle's state folder (XDG_STATE_HOME) must be the suite's own.
 */
export function spawnEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
}
