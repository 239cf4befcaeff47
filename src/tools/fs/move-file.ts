import { cp, rename, rm } from "node:fs/promises";
import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import type { ToolExecutionResult } from "../../core/result.js";
import type { ToolContext } from "../../core/tool.js";
import { inParent } from "../../workspace/beneath.js";
import { Workspace } from "../../workspace/workspace.js";
import { TOOL } from "../names.js";
import {
  accessPaths,
  assertFileDestination,
  assertNotRoot,
  carriesExecutionSensitive,
  carriesSecret,
  formatBytes,
  lstatOrUndefined,
  notFound,
  pathSubjects,
  statOrUndefined,
  describeFromTo,
} from "./common.js";
import { resolveArg } from "../resolve-arg.js";
import { recordVacated, wasVacated } from "../../workspace/vacated.js";
import { target } from "./delete-file.js";
import { ensureParent } from "./write-file.js";

const input = z.object({
  from: z.string().describe("File or folder to move or rename, relative to the workspace root."),
  to: z.string().describe("Its new path (the full new name, not a folder to move it into)."),
  overwrite: z.boolean().optional().describe("Replace an existing file at `to` (default false)."),
});

type Args = z.output<typeof input>;

const output = z.object({ from: z.string(), to: z.string() });

async function plan(args: Args, ctx: ToolContext) {
  const src = target(ctx, args.from);
  const srcStat = lstatOrUndefined(src.absolute);
  if (!srcStat) throw await notFound(ctx, resolveArg(ctx, args.from, true), "file or folder");
  const dest = resolveArg(ctx, args.to, true);
  assertNotRoot(dest, "replace");
  const destRel = ctx.workspace.display(dest);
  if (dest.absolute === src.absolute)
    throw new ToolError("INVALID_ARGS", `"${src.rel}" and "${destRel}" are the same path; nothing to move.`);
  if (srcStat.isDirectory() && Workspace.isInside(src.absolute, dest.absolute)) {
    throw new ToolError("INVALID_ARGS", `Cannot move the folder "${src.rel}" into itself ("${destRel}").`);
  }
  const destStat = statOrUndefined(dest.absolute);
  if (!srcStat.isDirectory()) assertFileDestination(args.to, destRel, destStat, src.rel);
  if (destStat) {
    if (destStat.isDirectory())
      throw new ToolError(
        "INVALID_ARGS",
        `"${destRel}" is a folder; a folder is never replaced by a move. Delete it first or choose another name.`,
      );
    if (!args.overwrite) {
      throw new ToolError("INVALID_ARGS", `"${destRel}" already exists. Set overwrite: true to replace it, or choose another name.`);
    }
    if (srcStat.isDirectory()) throw new ToolError("INVALID_ARGS", `Cannot replace the file "${destRel}" with the folder "${src.rel}".`);
  }
  return { src, srcStat, dest, destRel, destStat };
}

async function execute(args: Args, ctx: ToolContext): Promise<ToolExecutionResult> {
  const { src, srcStat, dest, destRel, destStat } = await plan(args, ctx);
  // What the model knew of the file goes with it.
  const known = srcStat.isFile() && ctx.reads !== undefined && ctx.reads.staleness(src.absolute) === undefined;
  await ensureParent(dest, destRel, true);
  try {
    // Through both parents' handles: neither folder can be swapped for a link on the way.
    await inParent(src.absolute, (from) => inParent(dest.absolute, (to) => rename(from, to)));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    // Another file system: copy (links kept as links), then remove the original, through the
    // parents' handles as the rename went.
    await inParent(src.absolute, (from) =>
      inParent(dest.absolute, (to) => cp(from, to, { recursive: true, force: true, verbatimSymlinks: true, preserveTimestamps: true })),
    );
    await inParent(src.absolute, (from) => rm(from, { recursive: true }));
  }
  recordVacated(ctx.workspace.root, src.absolute);
  if (known) ctx.reads!.saw(dest.absolute);
  const kind = srcStat.isDirectory() ? "folder" : srcStat.isSymbolicLink() ? "symbolic link" : "file";
  const replaced = destStat ? ` It replaced the previous "${destRel}" (${formatBytes(destStat.size)}).` : "";
  return {
    content: `Moved the ${kind} "${src.rel}" to "${destRel}".${replaced}`,
    structured: { from: src.rel, to: destRel },
    metadata: { from: src.rel, to: destRel, overwritten: Boolean(destStat) },
    changedPaths: [
      { path: src.rel, operation: "moved" },
      { path: destRel, operation: destStat ? "modified" : "created" },
    ],
  };
}

/** move_file: renames or moves within the workspace; asks only when it would overwrite. */
export const moveFileTool = defineTool({
  name: TOOL.moveFile,
  title: "Move file",
  description: loadDescription(import.meta.url, "move-file.txt"),
  input,
  output,
  effect: "write",
  describeCall: describeFromTo("Move"),
  scope: {
    kind: "path",
    subjects: (args, ctx) => [...new Set([...pathSubjects(ctx, [args.from, args.to], true), target(ctx, args.from).rel])],
  },
  access: (args, ctx) => ({ writes: accessPaths(ctx, [args.from, args.to], true) }),
  assess: async (args, ctx) => (await carriesExecutionSensitive(ctx, args.from, args.to)) ?? (await carriesSecret(ctx, args.from, "moves")),
  // Replacing a file asks, and so does filling a path a move emptied (see workspace/vacated.ts).
  needsApproval: (args, ctx) => {
    const dest = resolveArg(ctx, args.to, true).absolute;
    return statOrUndefined(dest) !== undefined || wasVacated(ctx.workspace.root, dest);
  },
  preview: async (args, ctx) => {
    const { src, destRel, destStat } = await plan(args, ctx);
    return `Move ${src.rel} → ${destRel}${destStat ? ` (replacing the existing ${destRel}, ${formatBytes(destStat.size)})` : ""}.`;
  },
  execute,
});
