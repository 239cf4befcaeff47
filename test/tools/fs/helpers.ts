import { mkdtempSync, realpathSync, rmSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ToolRegistry } from "../../../src/core/registry.js";
import type { ToolContext } from "../../../src/core/tool.js";
import { ToolRunner, type ToolRunnerOptions } from "../../../src/runtime/runner.js";
import type { Approver, ApprovalRequest } from "../../../src/runtime/approver.js";
import { Workspace } from "../../../src/workspace/workspace.js";
import { FILE_TOOLS } from "../../../src/tools/fs/index.js";

/** A temporary folder holding `ws` (the workspace) and `ws-evil` / `outside` beside it. */
export interface Sandbox {
  base: string;
  ws: string;
  evil: string;
  outside: string;
  workspace: Workspace;
  ctx: Partial<ToolContext>;
  cleanup: () => void;
}

export function makeSandbox(): Sandbox {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-fs-")));
  const ws = path.join(base, "ws");
  const evil = path.join(base, "ws-evil");
  const outside = path.join(base, "outside");
  for (const d of [ws, evil, outside]) mkdirSync(d);
  const workspace = Workspace.open(ws);
  return { base, ws, evil, outside, workspace, ctx: { workspace }, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export function fileRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.registerAll(FILE_TOOLS);
  registry.alias("edit", "edit_file");
  return registry;
}

/** Records every approval request and answers yes. */
export function approveAll(): Approver & { requests: ApprovalRequest[] } {
  const requests: ApprovalRequest[] = [];
  const fn = (async (req: ApprovalRequest) => {
    requests.push(req);
    return { approved: true };
  }) as unknown as Approver & { requests: ApprovalRequest[] };
  fn.requests = requests;
  return fn;
}

export function makeRunner(ws: string, options: Partial<ToolRunnerOptions> = {}): ToolRunner {
  return new ToolRunner({ registry: fileRegistry(), workspace: ws, cache: false, approver: approveAll(), ...options });
}

export const MODES = ["none", "safe", "all"] as const;
