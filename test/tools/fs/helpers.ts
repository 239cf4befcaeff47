import { ToolRegistry } from "../../../src/registry/registry.js";
import { boundarySandbox, type BoundarySandbox } from "../../support/tools.js";
import { ToolRunner, type ToolRunnerOptions } from "../../../src/runtime/runner.js";
import type { Approver, ApprovalRequest } from "../../../src/runtime/approver.js";
import { FILE_TOOLS } from "../../../src/tools/fs/index.js";

export type Sandbox = BoundarySandbox;

export function makeSandbox(): Sandbox {
  return boundarySandbox("tackle-fs-");
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
