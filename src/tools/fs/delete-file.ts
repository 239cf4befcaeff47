import { readdir, rm, rmdir, unlink } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { inParent } from "../../workspace/beneath.js";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import type { ToolExecutionResult } from "../../core/result.js";
import type { ToolContext } from "../../core/tool.js";
import { isProtectedPath } from "../../workspace/protected.js";
import { TOOL } from "../names.js";
import {
  accessPaths,
  assertNotRoot,
  carriesSecret,
  describePaths,
  formatBytes,
  lstatOrUndefined,
  notFound,
  pathSubjects,
} from "./common.js";
import { resolveArg } from "../resolve-arg.js";
import { formatCount } from "../../core/format-count.js";

/** Most paths reported one by one in structured output. */
const MAX_LISTED = 10_000;

const input = z.object({
  path: z.string().describe("File or folder to delete, relative to the workspace root."),
  recursive: z.boolean().optional().describe("Delete a folder with everything in it (default false: only files and empty folders)."),
});

type Args = z.output<typeof input>;

const output = z.object({
  deleted: z.array(z.string()).describe("Every path removed, relative to the workspace root."),
});

/** What a call would remove: the link itself for a symlink, else the resolved file or folder. */
export function target(ctx: ToolContext, given: string, write = true): { absolute: string; rel: string; isLink: boolean } {
  const resolved = resolveArg(ctx, given, write);
  assertNotRoot(resolved, "delete or move");
  const base = path.basename(given.replace(/[\\/]+$/, ""));
  if (base === "." || base === "..") {
    // rm and mv refuse these too: what goes should be named, not reached from inside or below it.
    throw new ToolError(
      "INVALID_PATH",
      `"${given}" ends in "${base}"; name the file or folder itself ("${ctx.workspace.display(resolved)}").`,
    );
  }
  if (base) {
    // A symlink is removed (or moved) itself, never what it points at.
    const parent = resolveArg(ctx, path.join(path.dirname(given), "."), write);
    const lexical = path.join(parent.absolute, base);
    const st = lstatOrUndefined(lexical);
    if (st?.isSymbolicLink()) {
      const rel = ctx.workspace.display({ ...parent, absolute: lexical, relative: path.posix.join(parent.relative, base) });
      if (write && isProtectedPath(rel))
        throw new ToolError(
          "PERMISSION_DENIED",
          `"${rel}" is protected: tools may not change tackle's configuration or git's hooks and config.`,
        );
      return { absolute: lexical, rel, isLink: true };
    }
  }
  return { absolute: resolved.absolute, rel: ctx.workspace.display(resolved), isLink: false };
}

/** Every path under a folder (depth first, children before their folder), relative to the workspace. */
async function walk(dir: string, rel: string, out: string[], signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw signal.reason;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const childRel = `${rel}/${entry.name}`;
    if (entry.isDirectory()) await walk(path.join(dir, entry.name), childRel, out, signal);
    out.push(childRel);
  }
}

async function plan(args: Args, ctx: ToolContext) {
  const t = target(ctx, args.path);
  const st = lstatOrUndefined(t.absolute);
  if (!st) throw await notFound(ctx, resolveArg(ctx, args.path, true), "file or folder");
  const inside: string[] = [];
  if (st.isDirectory()) {
    await walk(t.absolute, t.rel, inside, ctx.signal);
    if (inside.length && !args.recursive) {
      throw new ToolError(
        "INVALID_ARGS",
        `"${t.rel}" is a folder with ${formatCount(inside.length)} ` +
          `entr${inside.length === 1 ? "y" : "ies"}; set recursive: true to delete it and everything in it.`,
      );
    }
    const guarded = inside.find((p) => isProtectedPath(p));
    if (guarded)
      throw new ToolError(
        "PERMISSION_DENIED",
        `"${t.rel}" contains "${guarded}", which is protected (git hooks and config, tackle's configuration); it cannot be deleted.`,
      );
  }
  return { t, st, inside };
}

async function execute(args: Args, ctx: ToolContext): Promise<ToolExecutionResult> {
  const { t, st, inside } = await plan(args, ctx);
  let summary: string;
  if (st.isDirectory()) {
    if (inside.length) await inParent(t.absolute, (through) => rm(through, { recursive: true }));
    else await inParent(t.absolute, (through) => rmdir(through));
    const files = inside.length;
    summary = files
      ? `Deleted the folder "${t.rel}" and the ${formatCount(files)} entr${files === 1 ? "y" : "ies"} in it.`
      : `Deleted the empty folder "${t.rel}".`;
  } else {
    await inParent(t.absolute, (through) => unlink(through));
    summary = t.isLink
      ? `Deleted the symbolic link "${t.rel}" (what it pointed to is untouched).`
      : `Deleted the file "${t.rel}" (${formatBytes(st.size)}).`;
  }
  const deleted = [t.rel, ...inside];
  const listed = inside.length
    ? `\n${inside
        .slice(0, 20)
        .map((p) => `  ${p}`)
        .join("\n")}${inside.length > 20 ? `\n  … and ${inside.length - 20} more` : ""}`
    : "";
  return {
    content: summary + listed,
    structured: { deleted: deleted.slice(0, MAX_LISTED) },
    metadata: { deleted: deleted.length },
    changedPaths: [{ path: t.rel, operation: "deleted" }],
  };
}

/** delete_file: removes a file, a symlink, or (with recursive) a folder. Always asks. */
export const deleteFileTool = defineTool({
  name: TOOL.deleteFile,
  title: "Delete file",
  description: loadDescription(import.meta.url, "delete-file.txt"),
  input,
  output,
  effect: "destructive",
  describeCall: describePaths("Delete"),
  scope: {
    kind: "path",
    subjects: (args, ctx) => [...new Set([...pathSubjects(ctx, [args.path], true), target(ctx, args.path).rel])],
  },
  access: (args, ctx) => ({ writes: accessPaths(ctx, [args.path], true) }),
  assess: (args, ctx) => carriesSecret(ctx, args.path, "is deleted"),
  preview: async (args, ctx) => {
    const { t, st, inside } = await plan(args, ctx);
    if (!st.isDirectory())
      return `Delete ${t.isLink ? "the symbolic link" : "the file"} ${t.rel}${t.isLink ? "" : ` (${formatBytes(st.size)})`}.`;
    return `Delete the folder ${t.rel}${
      inside.length
        ? ` and ${inside.length} entries in it:\n${inside
            .slice(0, 30)
            .map((p) => `  - ${p}`)
            .join("\n")}${inside.length > 30 ? `\n  … and ${inside.length - 30} more` : ""}`
        : " (empty)"
    }`;
  },
  execute,
});
