import { readdirSync, realpathSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { toTool, type ToolLike } from "../../registry/registry.js";
import type { AnyTool } from "../../core/tool.js";
import { importAtRuntime } from "../../process/import-at-runtime.js";
import { pathBelow } from "../../workspace/path-below.js";

/** Where tool modules live when configuration says only `"toolModules": true`. */
export const DEFAULT_TOOL_MODULE_DIR = ".tackle/tools";

/**
 * The tools exported by the modules configuration names (`"toolModules": true` for
 * `.tackle/tools/*.js` and `*.mjs`, or a list of files and folders in the workspace). Only ever
 * loaded because configuration asks: a module runs with tackle's rights. Each export that is a
 * tool (a `defineTool` result, a BaseTool, a plain tool object) or a list of them is taken; a file
 * outside the workspace, or one that fails to load, stops start-up with the reason.
 */
export async function loadToolModules(setting: true | readonly string[], workspace: string): Promise<AnyTool[]> {
  const root = realpathSync(workspace);
  const files = (setting === true ? [DEFAULT_TOOL_MODULE_DIR] : setting).flatMap((entry) => moduleFiles(root, entry, setting === true));
  const tools: AnyTool[] = [];
  const from = new Map<string, string>();
  for (const file of files) {
    let exported: Record<string, unknown>;
    try {
      exported = await importAtRuntime<Record<string, unknown>>(pathToFileURL(file).href);
    } catch (err) {
      throw new Error(`The tool module ${path.relative(root, file)} could not be loaded: ${(err as Error).message}`);
    }
    const found = exportedValues(exported)
      .flatMap((value) => (Array.isArray(value) ? value : [value]))
      .filter(isToolish);
    if (found.length === 0) {
      throw new Error(`The tool module ${path.relative(root, file)} exports no tool; export defineTool(...) results (or a list of them).`);
    }
    for (const value of found) {
      const tool = toTool(value as ToolLike);
      const earlier = from.get(tool.name);
      if (earlier !== undefined) {
        throw new Error(`Two tool modules define "${tool.name}": ${earlier} and ${path.relative(root, file)}; rename one of them.`);
      }
      from.set(tool.name, path.relative(root, file));
      tools.push(tool);
    }
  }
  return tools;
}

/** The module files an entry names: a file, or the .js / .mjs files directly in a folder. */
function moduleFiles(root: string, entry: string, optional: boolean): string[] {
  let real: string;
  try {
    real = realpathSync(path.resolve(root, entry));
  } catch {
    if (optional) return [];
    throw new Error(`toolModules names ${entry}, which does not exist in the workspace.`);
  }
  const rel = pathBelow(root, real);
  if (rel === undefined) throw new Error(`toolModules names ${entry}, which is outside the workspace.`);
  let names: string[];
  try {
    names = readdirSync(real);
  } catch {
    return [real];
  }
  return names
    .filter((n) => n.endsWith(".js") || n.endsWith(".mjs"))
    .sort()
    .flatMap((n) => moduleFiles(root, path.join(rel, n), false));
}

/**
 * A module's exports, with those of a CommonJS `module.exports = { ... }` object: Node's import
 * names its keys only when it can read them from the source, and otherwise offers just `default`.
 */
function exportedValues(exported: Record<string, unknown>): unknown[] {
  const values = Object.entries(exported).filter(([key]) => key !== "module.exports");
  const all = values.flatMap(([key, value]) =>
    key === "default" && typeof value === "object" && value !== null && !Array.isArray(value) && !isToolish(value)
      ? Object.values(value)
      : [value],
  );
  // Where Node did name the keys, `default` holds the same objects again.
  return [...new Set(all)];
}

function isToolish(value: unknown): boolean {
  return typeof value === "object" && value !== null && typeof (value as { name?: unknown }).name === "string" && "execute" in value;
}
