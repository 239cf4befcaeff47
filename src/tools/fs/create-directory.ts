import { mkdirBeneath } from "../../workspace/beneath.js";
import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import type { ToolExecutionResult } from "../../core/result.js";
import type { ToolContext } from "../../core/tool.js";
import { TOOL } from "../names.js";
import { accessPaths, pathSubjects, statOrUndefined, describePaths } from "./common.js";
import { resolveArg } from "../resolve-arg.js";

const input = z.object({
  path: z.string().describe("Folder to create, relative to the workspace root; missing parents are created too."),
});

type Args = z.output<typeof input>;

async function execute(args: Args, ctx: ToolContext): Promise<ToolExecutionResult> {
  const resolved = resolveArg(ctx, args.path, true);
  const rel = ctx.workspace.display(resolved);
  const st = statOrUndefined(resolved.absolute);
  if (st?.isDirectory()) {
    return { content: `The folder "${rel}" already exists; nothing to do.`, structured: { path: rel, created: false } };
  }
  if (st) throw new ToolError("INVALID_PATH", `"${rel}" already exists and is a file, not a folder.`);
  // Resolved through every existing symlink, and made through held folders: a folder on the way
  // swapped for a link meanwhile is refused rather than followed out of the workspace.
  await mkdirBeneath(resolved.absolute);
  return {
    content: `Created the folder "${rel}".`,
    structured: { path: rel, created: true },
    changedPaths: [{ path: rel, operation: "created" }],
  };
}

/** create_directory: makes a folder and its missing parents. */
export const createDirectoryTool = defineTool({
  name: TOOL.createDirectory,
  title: "Create directory",
  description: loadDescription(import.meta.url, "create-directory.txt"),
  input,
  effect: "write",
  idempotent: true,
  describeCall: describePaths("Create the folder"),
  scope: { kind: "path", subjects: (args, ctx) => pathSubjects(ctx, [args.path], true) },
  access: (args, ctx) => ({ writes: accessPaths(ctx, [args.path], true) }),
  preview: async (args, ctx) => `Create the folder ${ctx.workspace.display(resolveArg(ctx, args.path, true))} (and any missing parents).`,
  execute,
});
