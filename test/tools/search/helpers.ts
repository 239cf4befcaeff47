import { ToolRegistry } from "../../../src/registry/registry.js";
import { boundarySandbox, type BoundarySandbox } from "../../support/tools.js";
import { ToolRunner, type ToolRunnerOptions } from "../../../src/runtime/runner.js";
import { createGlobTool, createGrepTool } from "../../../src/tools/search/index.js";
import type { SearchBackend } from "../../../src/tools/search/backend.js";
import { findRipgrep } from "../../../src/tools/search/ripgrep.js";

/** The backends to test: the built-in one always, ripgrep when this machine has it. */
export const BACKENDS: Array<Exclude<SearchBackend, "auto">> = findRipgrep() ? ["ripgrep", "builtin"] : ["builtin"];
export const HAS_RG = findRipgrep() !== undefined;

export type Sandbox = BoundarySandbox;

export function makeSandbox(): Sandbox {
  return boundarySandbox("tackle-search-");
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

export { failure } from "../../support/tools.js";
