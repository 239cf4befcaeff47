import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Workspace } from "../../../src/workspace/workspace.js";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolRunner, type ToolRunnerOptions } from "../../../src/runtime/runner.js";
import type { ApprovalMode } from "../../../src/runtime/policy.js";
import { createShellTools } from "../../../src/tools/shell/index.js";
import { shellSettingsFrom } from "../../../src/tools/shell/settings.js";

/** A temporary workspace with a few ordinary files and one secret. */
export function makeWorkspace(): { root: string; workspace: Workspace; cleanup: () => void } {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-shell-test-")));
  mkdirSync(path.join(root, "src"));
  writeFileSync(path.join(root, "a.txt"), "alpha\nbeta\n");
  writeFileSync(path.join(root, "README.md"), "# readme\n");
  writeFileSync(path.join(root, "src", "x.ts"), "export const x = 1;\n");
  writeFileSync(path.join(root, "package.json"), '{"name":"t"}\n');
  writeFileSync(path.join(root, ".env"), "SECRET=1\n");
  writeFileSync(path.join(root, "key.pem"), "-----BEGIN-----\n");
  return { root, workspace: Workspace.open(root), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export { processesWith } from "../../support/processes.js";

/** Waits until `check` holds, up to `ms`. */
export async function eventually(check: () => boolean, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

export interface ShellRunnerOptions {
  rules?: ToolRunnerOptions["rules"];
  /** What the person answers when asked. */
  approve?: boolean;
  /** The configuration's `shell` section. */
  shell?: Record<string, unknown>;
  /** The whole configuration, when more than its `shell` section matters. */
  config?: Record<string, unknown>;
  codeFiles?: string[];
}

/**
 * Runners over the shell tools alone in the workspace `root()`, in an approval mode; `close` stops
 * every one made and the background jobs they started.
 */
export function shellRunners(root: () => string): {
  tools: (shell?: Record<string, unknown>, config?: Record<string, unknown>) => ReturnType<typeof createShellTools>["tools"];
  runner: (approval: ApprovalMode, options?: ShellRunnerOptions) => ToolRunner;
  close: () => Promise<void>;
} {
  const runners: ToolRunner[] = [];
  const jobs: Array<{ stopAll(): Promise<void> }> = [];
  const tools = (shell: Record<string, unknown> = {}, config: Record<string, unknown> = { shell }) => {
    const made = createShellTools(shellSettingsFrom(config), config);
    jobs.push(made.jobs);
    return made.tools;
  };
  const runner = (approval: ApprovalMode, options: ShellRunnerOptions = {}) => {
    const registry = new ToolRegistry();
    for (const t of tools(options.shell, options.config)) registry.register(t);
    const r = new ToolRunner({
      registry,
      workspace: root(),
      approval,
      ...(options.rules ? { rules: options.rules } : {}),
      ...(options.codeFiles ? { codeFiles: options.codeFiles } : {}),
      approver: async () => ({ approved: options.approve === true }),
    });
    runners.push(r);
    return r;
  };
  const close = async () => {
    for (const j of jobs) await j.stopAll();
    for (const r of runners) await r.close();
  };
  return { tools, runner, close };
}

/** Numbers below n from a fixed seed (a linear congruential generator), so a generated case that fails fails again. */
export function seeded(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
}
