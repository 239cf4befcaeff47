import { constants, existsSync } from "node:fs";
import { access } from "node:fs/promises";
import { mkdirBeneath } from "../../workspace/beneath.js";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import type { ToolExecutionResult } from "../../core/result.js";
import type { ToolContext } from "../../core/tool.js";
import { atomicWriteFile } from "../../workspace/atomic-write.js";
import type { ResolvedPath } from "../../workspace/workspace.js";
import { TOOL } from "../names.js";
import { accessPaths, assertNotRoot, assertSeen, formatBytes, namesFolder, pathSubjects, staleNote, statOrUndefined } from "./common.js";
import { resolveArg } from "../resolve-arg.js";
import { wasVacated } from "../../workspace/vacated.js";
import { replacementPreview } from "./preview.js";

const input = z.object({
  path: z.string().describe("File to write, relative to the workspace root."),
  content: z.string().describe("The complete new content of the file."),
  encoding: z
    .enum(["utf-8", "utf8", "base64"])
    .optional()
    .describe('How `content` is encoded: "utf-8" text (default) or "base64" bytes (for binary files).'),
  createDirs: z.boolean().optional().describe("Create missing parent folders (default true)."),
});

type Args = z.output<typeof input>;

const output = z.object({
  path: z.string().describe("The file written, relative to the workspace root."),
  size: z.number().describe("Bytes written."),
  created: z.boolean().optional().describe("True when the file did not exist before."),
});

const BASE64 = /^[A-Za-z0-9+/\-_\s]*={0,2}\s*$/;

/** The bytes to write, decoding base64 when asked; INVALID_ARGS for malformed base64. */
export function contentBytes(content: string, encoding: string | undefined): Buffer {
  if (encoding !== "base64") return Buffer.from(content, "utf8");
  if (!BASE64.test(content)) {
    throw new ToolError("INVALID_ARGS", `content is not valid base64; send base64 bytes with encoding "base64", or plain text without it.`);
  }
  return Buffer.from(content, "base64");
}

/** Checks that an existing target is a writable regular file. */
export async function assertWritableFile(resolved: ResolvedPath, rel: string): Promise<void> {
  const st = statOrUndefined(resolved.absolute);
  if (!st) return;
  if (st.isDirectory()) throw new ToolError("INVALID_PATH", `"${rel}" is a directory; give the path of a file inside it.`);
  if (!st.isFile()) throw new ToolError("INVALID_PATH", `"${rel}" is not a regular file (a device, socket or pipe); it cannot be written.`);
  try {
    // No write bit at all means "read-only" even to root, who would pass the access() check.
    if ((st.mode & 0o222) === 0) throw new Error("read-only");
    await access(resolved.absolute, constants.W_OK);
  } catch {
    throw new ToolError(
      "PERMISSION_DENIED",
      `"${rel}" is read-only (its permissions do not allow writing). Ask the user to change them if it should be edited.`,
    );
  }
}

/** Makes sure the folder a file goes into exists, creating it when allowed. */
export async function ensureParent(resolved: ResolvedPath, rel: string, create: boolean): Promise<void> {
  const parent = path.dirname(resolved.absolute);
  const st = statOrUndefined(parent);
  if (st?.isDirectory()) return;
  if (st) throw new ToolError("INVALID_PATH", `The parent of "${rel}" is a file, not a folder.`);
  if (!create) {
    throw new ToolError(
      "FILE_NOT_FOUND",
      `The folder "${path.posix.dirname(rel)}" does not exist. Set createDirs to true, or create it with create_directory first.`,
    );
  }
  // The parent was resolved through every existing symlink; made through held folders, so that a
  // folder swapped for a link meanwhile is refused rather than followed out of the workspace.
  await mkdirBeneath(parent);
}

async function execute(args: Args, ctx: ToolContext): Promise<ToolExecutionResult> {
  if (namesFolder(args.path)) {
    throw new ToolError(
      "INVALID_PATH",
      `"${args.path}" names a folder (it ends in "/", "/." or "/.."); give the path of the file to write.`,
    );
  }
  const resolved = resolveArg(ctx, args.path, true);
  assertNotRoot(resolved, "overwrite");
  const rel = ctx.workspace.display(resolved);
  const bytes = contentBytes(args.content, args.encoding);
  const before = statOrUndefined(resolved.absolute);
  await assertWritableFile(resolved, rel);
  if (before) assertSeen(ctx, resolved.absolute, rel, "write it");
  await ensureParent(resolved, rel, args.createDirs ?? true);
  const size = await atomicWriteFile(resolved.absolute, bytes);
  ctx.reads?.saw(resolved.absolute);
  const what = before
    ? `replaced its previous ${formatBytes(before.size)}${before.nlink > 1 ? "; it was a hard link, and the other names keep the old content" : ""}`
    : "new file";
  return {
    content: `Wrote ${formatBytes(size)} to "${rel}" (${what}).`,
    structured: { path: rel, size, created: !before },
    metadata: { path: rel, size, bytesWritten: size, created: !before },
    changedPaths: [{ path: rel, operation: before ? "modified" : "created" }],
  };
}

/** write_file: creates or replaces a file atomically; asks only when it would overwrite. */
export const writeFileTool = defineTool({
  name: TOOL.writeFile,
  title: "Write file",
  description: loadDescription(import.meta.url, "write-file.txt"),
  input,
  parameterAliases: { createDirectories: "createDirs" },
  output,
  effect: "write",
  // The same content written again leaves the same file: safe to try again after a failure that may pass.
  idempotent: true,
  describeCall: (_args, subjects, ctx) =>
    `${existsSync(path.resolve(ctx.workspace.root, subjects[0] ?? "")) ? "Overwrite" : "Create"} ${subjects.join(", ")}`,
  scope: { kind: "path", subjects: (args, ctx) => pathSubjects(ctx, [args.path], true) },
  access: (args, ctx) => ({ writes: accessPaths(ctx, [args.path], true) }),
  // Spec 003: a new file is written without asking; overwriting an existing one asks, and so does
  // filling a path a move emptied, which would replace that file's content as surely.
  needsApproval: async (args, ctx) => {
    const resolved = resolveArg(ctx, args.path, true);
    return statOrUndefined(resolved.absolute) !== undefined || wasVacated(ctx.workspace.root, resolved.absolute);
  },
  preview: async (args, ctx) => {
    const resolved = resolveArg(ctx, args.path, true);
    const st = statOrUndefined(resolved.absolute);
    const stale = st?.isFile() ? staleNote(ctx, resolved.absolute, ctx.workspace.display(resolved)) : "";
    const refilled =
      !st && wasVacated(ctx.workspace.root, resolved.absolute)
        ? `${ctx.workspace.display(resolved)} held a file until a move took it away; this write puts new content there.\n`
        : "";
    return (
      stale +
      refilled +
      (await replacementPreview(
        ctx.workspace.display(resolved),
        resolved.absolute,
        st?.isFile() ? st.size : undefined,
        contentBytes(args.content, args.encoding),
      ))
    );
  },
  execute,
});
