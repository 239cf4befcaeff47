import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ToolRegistry } from "../../../src/core/registry.js";
import type { ToolContext } from "../../../src/core/tool.js";
import { ToolError } from "../../../src/core/errors.js";
import { ToolRunner, type ToolRunnerOptions } from "../../../src/runtime/runner.js";
import { Workspace } from "../../../src/workspace/workspace.js";
import { createGlobTool, createGrepTool } from "../../../src/tools/search/index.js";
import type { SearchBackend } from "../../../src/tools/search/backend.js";
import { findRipgrep } from "../../../src/tools/search/ripgrep.js";

/** The backends to test: the built-in one always, ripgrep when this machine has it. */
export const BACKENDS: Array<Exclude<SearchBackend, "auto">> = findRipgrep() ? ["ripgrep", "builtin"] : ["builtin"];
export const HAS_RG = findRipgrep() !== undefined;

/** A temporary folder holding `ws` (the workspace) and `ws-evil` / `outside` beside it. */
export interface Sandbox {
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

export function makeSandbox(): Sandbox {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tackle-search-")));
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

export function searchRegistry(backend: SearchBackend): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(createGlobTool({ backend }));
  registry.register(createGrepTool({ backend }));
  registry.alias("search_files", "glob");
  return registry;
}

export function makeRunner(ws: string, backend: SearchBackend, options: Partial<ToolRunnerOptions> = {}): ToolRunner {
  return new ToolRunner({ registry: searchRegistry(backend), workspace: ws, cache: false, ...options });
}

/** The ToolError a promise rejects with. */
export async function failure(p: Promise<unknown>): Promise<ToolError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error("expected a ToolError");
}
