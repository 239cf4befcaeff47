import { readdirResolvedSync } from "../../workspace/no-follow.js";
import { lstatSync, readlinkSync, type Dirent } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import type { ToolExecutionResult } from "../../core/result.js";
import type { ToolContext } from "../../core/tool.js";
import { TOOL } from "../names.js";
import { accessPaths, notFound, pathSubjects, statOrUndefined, describePaths } from "./common.js";
import { resolveArg } from "../resolve-arg.js";
import { formatCount } from "../../core/format-count.js";
import { yielder } from "../yielder.js";

/** Most entries in one listing; beyond it the answer says how to narrow. */
export const MAX_LIST_ENTRIES = 1000;

const input = z.object({
  path: z.string().default(".").describe('Folder to list, relative to the workspace root (default ".", the root).'),
  recursive: z.boolean().optional().describe("Also list everything below, breadth first (default false). Symbolic links are not followed."),
  includeHidden: z.boolean().optional().describe('Include names starting with "." (default false).'),
});

type Args = z.output<typeof input>;

const entrySchema = z.object({
  name: z.string().describe("Name, relative to the listed folder (a path when recursive)."),
  type: z.enum(["file", "directory", "symlink"]),
  size: z.number(),
  modified: z.string().describe("ISO 8601"),
});

const output = z.object({
  entries: z.array(entrySchema),
  truncated: z.boolean().optional(),
});

type Entry = z.output<typeof entrySchema> & { target?: string };

function line(e: Entry): string {
  const size = e.type === "directory" ? "-" : formatCount(e.size);
  const name = e.type === "directory" ? `${e.name}/` : e.type === "symlink" ? `${e.name} -> ${e.target ?? "?"}` : e.name;
  return `${e.type === "directory" ? "dir " : e.type === "symlink" ? "link" : "file"}  ${size.padStart(13)}  ${e.modified.slice(0, 19)}Z  ${name}`;
}

function readlinkOr(file: string, otherwise: string): string {
  try {
    return readlinkSync(file);
  } catch {
    return otherwise;
  }
}

async function execute(args: Args, ctx: ToolContext): Promise<ToolExecutionResult> {
  const resolved = resolveArg(ctx, args.path);
  const rel = ctx.workspace.display(resolved);
  const st = statOrUndefined(resolved.absolute);
  if (!st) throw await notFound(ctx, resolved, "folder");
  if (!st.isDirectory()) throw new ToolError("INVALID_PATH", `"${rel}" is a file, not a folder. Read it with read_file.`);
  const entries: Entry[] = [];
  let truncated = false;
  let skippedHidden = 0;
  // Synchronous calls, in slices that let the event loop run: each costs a small part of a
  // thread-pool round trip, and a listing makes one per entry.
  const pause = yielder(ctx.signal, "listing");
  // Breadth first: when the cap is reached, the upper levels are complete.
  const queue: string[] = [""];
  outer: while (queue.length) {
    const wait = pause();
    if (wait) await wait;
    const sub = queue.shift()!;
    const dir = path.join(resolved.absolute, sub);
    let dirents: Dirent[];
    try {
      dirents = readdirResolvedSync(dir);
    } catch (err) {
      if (sub === "") throw err;
      continue; // a folder that vanished or cannot be read is skipped, not fatal
    }
    dirents.sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name));
    for (const d of dirents) {
      if (!args.includeHidden && d.name.startsWith(".")) {
        skippedHidden++;
        continue;
      }
      if (entries.length >= MAX_LIST_ENTRIES) {
        truncated = true;
        break outer;
      }
      const name = sub ? `${sub}/${d.name}` : d.name;
      const wait = pause();
      if (wait) await wait;
      let info;
      try {
        info = lstatSync(path.join(dir, d.name));
      } catch {
        continue;
      }
      const type = info.isSymbolicLink() ? "symlink" : info.isDirectory() ? "directory" : "file";
      const entry: Entry = { name, type, size: type === "directory" ? 0 : info.size, modified: info.mtime.toISOString() };
      if (type === "symlink") entry.target = readlinkOr(path.join(dir, d.name), "?");
      entries.push(entry);
      if (args.recursive && type === "directory") queue.push(name);
    }
  }
  const header =
    `${rel === "." ? "The workspace root" : `"${rel}"`}${args.recursive ? " (recursive)" : ""}: ` +
    `${formatCount(entries.length)}${truncated ? "+" : ""} entr${entries.length === 1 ? "y" : "ies"}`;
  const body = entries.length ? entries.map(line).join("\n") : "(empty)";
  const notes: string[] = [];
  if (truncated) {
    notes.push(
      `[Listing stopped at ${formatCount(MAX_LIST_ENTRIES)} entries. Narrow it: list a subfolder (path: ` +
        `"${rel === "." ? "" : `${rel}/`}<folder>")${args.recursive ? ", drop recursive" : ""}, or find files by pattern with glob.]`,
    );
  }
  if (skippedHidden && !args.includeHidden)
    notes.push(`[${skippedHidden} hidden entr${skippedHidden === 1 ? "y" : "ies"} not shown; set includeHidden: true to see them.]`);
  const content = [header, body, ...notes].join("\n");
  const structuredEntries = entries.map(({ target: _t, ...e }) => e);
  return {
    content,
    structured: { entries: structuredEntries, ...(truncated ? { truncated: true } : {}) },
    metadata: { path: rel, count: entries.length, truncated },
  };
}

/** list_directory: names, types, sizes and times, bounded for huge trees. */
export const listDirectoryTool = defineTool({
  name: TOOL.listDirectory,
  title: "List directory",
  description: loadDescription(import.meta.url, "list-directory.txt"),
  input,
  output,
  effect: "read",
  describeCall: describePaths("List"),
  scope: { kind: "path", subjects: (args, ctx) => pathSubjects(ctx, [args.path]) },
  access: (args, ctx) => ({ reads: accessPaths(ctx, [args.path]) }),
  execute,
});
