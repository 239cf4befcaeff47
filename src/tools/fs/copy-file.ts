import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { copyFile, cp, lstat, readdir, rename, unlink } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { inParent } from "../../workspace/beneath.js";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import type { ToolExecutionResult } from "../../core/result.js";
import type { ToolContext } from "../../core/tool.js";
import { ATOMIC_TEMP_PREFIX, syncDirectory } from "../../workspace/atomic-write.js";
import { Workspace } from "../../workspace/workspace.js";
import { TOOL } from "../names.js";
import {
  accessPaths,
  assertFileDestination,
  assertNotRoot,
  carriesExecutionSensitive,
  formatBytes,
  notFound,
  pathSubjects,
  statOrUndefined,
  describeFromTo,
} from "./common.js";
import { resolveArg } from "../resolve-arg.js";
import { formatCount } from "../../core/format-count.js";
import { assertWritableFile, ensureParent } from "./write-file.js";

const input = z.object({
  source: z.string().describe("File (or folder, with recursive) to copy, relative to the workspace root."),
  dest: z.string().describe("Path of the copy (the full new name)."),
  overwrite: z.boolean().optional().describe("Replace an existing file at dest (default false)."),
  recursive: z.boolean().optional().describe("Copy a folder and everything in it (default false)."),
});

type Args = z.output<typeof input>;

async function plan(args: Args, ctx: ToolContext) {
  const src = resolveArg(ctx, args.source);
  const srcRel = ctx.workspace.display(src);
  const srcStat = statOrUndefined(src.absolute);
  if (!srcStat) throw await notFound(ctx, src, "file or folder");
  const dest = resolveArg(ctx, args.dest, true);
  assertNotRoot(dest, "replace");
  const destRel = ctx.workspace.display(dest);
  if (dest.absolute === src.absolute) throw new ToolError("INVALID_ARGS", `source and dest are the same path ("${srcRel}").`);
  const destStat = statOrUndefined(dest.absolute);
  if (srcStat.isDirectory()) {
    if (!args.recursive)
      throw new ToolError("INVALID_ARGS", `"${srcRel}" is a folder; set recursive: true to copy it with everything in it.`);
    if (Workspace.isInside(src.absolute, dest.absolute))
      throw new ToolError("INVALID_ARGS", `Cannot copy the folder "${srcRel}" into itself ("${destRel}").`);
    if (destStat) throw new ToolError("INVALID_ARGS", `"${destRel}" already exists; a folder is copied only to a new path.`);
    if (!(await folderFits(src.absolute)))
      throw tooLargeToCopy(`"${srcRel}" holds more than ${formatBytes(MAX_COPY_BYTES)} or ${formatCount(MAX_COPY_ENTRIES)} entries`);
  } else if (!srcStat.isFile()) {
    throw new ToolError("INVALID_PATH", `"${srcRel}" is not a regular file; it cannot be copied.`);
  } else {
    if (srcStat.size > MAX_COPY_BYTES) throw tooLargeToCopy(`"${srcRel}" is ${formatBytes(srcStat.size)}`);
    assertFileDestination(args.dest, destRel, destStat, srcRel);
    if (destStat) {
      if (!args.overwrite)
        throw new ToolError("INVALID_ARGS", `"${destRel}" already exists. Set overwrite: true to replace it, or choose another name.`);
      await assertWritableFile(dest, destRel);
    }
  }
  return { src, srcRel, srcStat, dest, destRel, destStat };
}

/**
 * The most copy_file writes in one call, a file or a folder's files together: a copy cannot be
 * stopped halfway, and a large (or sparse) file would fill the disk and hold the call for minutes.
 */
export const MAX_COPY_BYTES = 1024 * 1024 * 1024;
/** Entries of a folder counted before it is taken as too large to copy. */
const MAX_COPY_ENTRIES = 100_000;

function tooLargeToCopy(what: string): ToolError {
  return new ToolError(
    "INVALID_ARGS",
    `${what}; copy_file copies at most ${formatBytes(MAX_COPY_BYTES)} in one call. Copy a smaller part, or ask the user to copy it.`,
    { recoverable: false },
  );
}

/** Whether a folder's files (links not followed) come to at most the limit, in at most so many entries. */
async function folderFits(dir: string): Promise<boolean> {
  let total = 0;
  let entries = 0;
  const pending = [dir];
  while (pending.length) {
    const current = pending.pop()!;
    for (const entry of await readdir(current, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile()) total += (await lstat(full).catch(() => undefined))?.size ?? 0;
      if (total > MAX_COPY_BYTES || ++entries > MAX_COPY_ENTRIES) return false;
    }
  }
  return true;
}

async function execute(args: Args, ctx: ToolContext): Promise<ToolExecutionResult> {
  const { src, srcRel, srcStat, dest, destRel, destStat } = await plan(args, ctx);
  await ensureParent(dest, destRel, true);
  if (srcStat.isDirectory()) {
    // Links inside are copied as links (never followed out of the workspace); every later use resolves
    // them again. Through both parents' handles: neither folder can be swapped for a link on the way.
    await inParent(src.absolute, (from) =>
      inParent(dest.absolute, (to) => cp(from, to, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true })),
    );
  } else {
    // Copy beside the destination, then rename over it: the copy appears whole or not at all.
    const temp = path.join(
      path.dirname(dest.absolute),
      `${ATOMIC_TEMP_PREFIX}${path.basename(dest.absolute).slice(0, 40)}-${randomBytes(6).toString("hex")}`,
    );
    // The copy is made and renamed into place through the destination folder's handle.
    await inParent(dest.absolute, async (destThrough) => {
      const tempThrough = path.join(path.dirname(destThrough), path.basename(temp));
      try {
        await inParent(src.absolute, (from) => copyFile(from, tempThrough, constants.COPYFILE_EXCL));
        await rename(tempThrough, destThrough);
      } catch (err) {
        await unlink(tempThrough).catch(() => {});
        throw err;
      }
    });
    await syncDirectory(path.dirname(dest.absolute));
  }
  const what = srcStat.isDirectory() ? "folder" : `file (${formatBytes(srcStat.size)})`;
  return {
    content: `Copied the ${what} "${srcRel}" to "${destRel}"${destStat ? ", replacing what was there" : ""}.`,
    structured: { source: srcRel, dest: destRel, size: srcStat.size },
    metadata: { source: srcRel, dest: destRel },
    changedPaths: [{ path: destRel, operation: destStat ? "modified" : "created" }],
  };
}

/** copy_file: copies a file, or a folder with recursive; asks for approval. */
export const copyFileTool = defineTool({
  name: TOOL.copyFile,
  title: "Copy file",
  description: loadDescription(import.meta.url, "copy-file.txt"),
  input,
  effect: "write",
  describeCall: describeFromTo("Copy"),
  scope: {
    kind: "path",
    subjects: (args, ctx) => [...new Set([...pathSubjects(ctx, [args.source]), ...pathSubjects(ctx, [args.dest], true)])],
  },
  access: (args, ctx) => ({ reads: accessPaths(ctx, [args.source]), writes: accessPaths(ctx, [args.dest], true) }),
  assess: (args, ctx) => carriesExecutionSensitive(ctx, args.source, args.dest),
  preview: async (args, ctx) => {
    const { srcRel, destRel, srcStat, destStat } = await plan(args, ctx);
    return (
      `Copy ${srcRel}${srcStat.isDirectory() ? "/ (folder)" : ` (${formatBytes(srcStat.size)})`} ` +
      `→ ${destRel}${destStat ? ` (replacing the existing ${destRel})` : ""}.`
    );
  },
  execute,
});
