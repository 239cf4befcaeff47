import { constants } from "node:fs";
import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import type { ToolExecutionResult } from "../../core/result.js";
import type { ToolContext } from "../../core/tool.js";
import { atomicWriteFile } from "../../workspace/atomic-write.js";
import { TOOL } from "../names.js";
import { ToolError } from "../../core/errors.js";
import { accessPaths, assertNotRoot, formatBytes, pathSubjects, statOrUndefined, describePaths } from "./common.js";
import { resolveArg } from "../resolve-arg.js";
import { assertWritableFile } from "./write-file.js";
import { openResolved, readResolved } from "../../workspace/no-follow.js";

const input = z.object({
  path: z.string().describe("Existing file to add to, relative to the workspace root."),
  content: z.string().describe("Text to add at the end of the file, exactly as given (include a leading newline if needed)."),
});

type Args = z.output<typeof input>;

async function execute(args: Args, ctx: ToolContext): Promise<ToolExecutionResult> {
  const resolved = resolveArg(ctx, args.path, true);
  assertNotRoot(resolved, "append to");
  const rel = ctx.workspace.display(resolved);
  const st = statOrUndefined(resolved.absolute);
  if (!st) {
    throw new ToolError(
      "FILE_NOT_FOUND",
      `"${rel}" does not exist; append_file only adds to an existing file. Create it with write_file first.`,
    );
  }
  await assertWritableFile(resolved, rel);
  // Appending overwrites nothing, so it needs no read first; the model knows the result only if it knew the file.
  const known = ctx.reads !== undefined && ctx.reads.staleness(resolved.absolute) === undefined;
  const bytes = Buffer.from(args.content, "utf8");
  if (st.nlink > 1) {
    // A hard link may share its content with a file outside the workspace: copy, then replace the link.
    await atomicWriteFile(resolved.absolute, Buffer.concat([await readResolved(resolved.absolute), bytes]));
  } else {
    // The file that was checked, or nothing: a link swapped in on the way is refused, not followed.
    const handle = await openResolved(resolved.absolute, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
    try {
      await handle.write(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
  if (known) ctx.reads!.saw(resolved.absolute);
  const size = st.size + bytes.length;
  const newline = st.size > 0 && bytes.length > 0 ? await endsWithoutNewline(resolved.absolute, st.size) : false;
  const note =
    newline && !args.content.startsWith("\n") ? " The file did not end with a newline, so the new text continues its last line." : "";
  return {
    content: `Appended ${formatBytes(bytes.length)} to "${rel}" (now ${formatBytes(size)}).${note}`,
    structured: { path: rel, size, appended: bytes.length },
    metadata: { path: rel, size, appended: bytes.length, bytesWritten: bytes.length },
    changedPaths: [{ path: rel, operation: "modified" }],
  };
}

/** Whether the byte before `at` (the old end of the file) is not a newline. */
async function endsWithoutNewline(file: string, at: number): Promise<boolean> {
  const handle = await openResolved(file);
  try {
    const buf = Buffer.alloc(1);
    await handle.read(buf, 0, 1, at - 1);
    return buf[0] !== 0x0a;
  } finally {
    await handle.close();
  }
}

/** append_file: adds text to the end of an existing file. */
export const appendFileTool = defineTool({
  name: TOOL.appendFile,
  title: "Append to file",
  description: loadDescription(import.meta.url, "append-file.txt"),
  input,
  effect: "write",
  describeCall: describePaths("Append to"),
  scope: { kind: "path", subjects: (args, ctx) => pathSubjects(ctx, [args.path], true) },
  access: (args, ctx) => ({ writes: accessPaths(ctx, [args.path], true) }),
  preview: async (args, ctx) => {
    const resolved = resolveArg(ctx, args.path, true);
    const rel = ctx.workspace.display(resolved);
    const shownText =
      args.content.length > 4000 ? `${args.content.slice(0, 4000)}\n… (${args.content.length - 4000} more characters)` : args.content;
    return `Append ${formatBytes(Buffer.byteLength(args.content))} to ${rel}:\n${shownText
      .split("\n")
      .map((l) => `+${l}`)
      .join("\n")}`;
  },
  execute,
});
