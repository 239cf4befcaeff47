import { z } from "zod";
import { withKeySpellings } from "../../compat/key-spellings.js";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import type { ToolExecutionResult } from "../../core/result.js";
import type { ToolContext } from "../../core/tool.js";
import { atomicWriteFile } from "../../workspace/atomic-write.js";
import { TOOL } from "../names.js";
import { accessPaths, assertSeen, pathSubjects, staleNote, describePaths } from "./common.js";
import { linesAt, numberedSpan, readEditable, replaceIn, type EditSource } from "./edit-file.js";
import { lineSpan } from "./line-span.js";
import { editDiff } from "./preview.js";

/** Most edits in one call: more is a rewrite, which write_file does in one piece. */
export const MAX_EDITS = 100;

const edit = z.object({
  old: z.string().describe("The exact text to replace, as it stands after the edits before this one."),
  new: z.string().describe("The text to put in its place."),
  replace_all: z.boolean().default(false).describe("Replace every occurrence of old (default false)."),
  expected_replacements: z.number().int().positive().optional().describe("Exactly how many occurrences must be replaced."),
});

const input = z.object({
  path: z.string().describe("File to edit, relative to the workspace root."),
  // Each edit also in edit_file's spelling (old_string, new_string), the one models reach for.
  edits: z
    .array(withKeySpellings(edit, { old_string: "old", new_string: "new" }))
    .min(1)
    .max(MAX_EDITS)
    .describe(`The replacements, applied in order (1 to ${MAX_EDITS}).`),
});

type Args = z.output<typeof input>;

interface Plan {
  source: EditSource;
  after: string;
  bytes: Buffer;
  replacements: number;
  /** The changed region: [start, endBefore) of the old text became [start, endAfter) of the new. */
  start: number;
  endBefore: number;
  endAfter: number;
}

/** Every edit applied in memory, in order; the first that fails stops the call with nothing written. */
async function plan(args: Args, ctx: ToolContext): Promise<Plan> {
  const source = await readEditable(args.path, ctx, "multi_edit");
  let text = source.text;
  let replacements = 0;
  args.edits.forEach((e, i) => {
    try {
      const r = replaceIn(text, e);
      text = r.after;
      replacements += r.found.length;
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      const earlier = i === 0 ? "" : ` (its old is matched against the text edits 1–${i} left)`;
      throw new ToolError(err.code, `Edit ${i + 1} of ${args.edits.length}${earlier}: ${err.message} No edit was applied.`);
    }
  });
  const before = source.text;
  if (text === before) throw new ToolError("INVALID_ARGS", `The edits together leave "${source.rel}" as it was; nothing was written.`);
  // The changed region, for the diff and the answer: what lies between the unchanged start and end.
  let start = 0;
  while (start < before.length && start < text.length && before[start] === text[start]) start++;
  let tail = 0;
  while (tail < before.length - start && tail < text.length - start && before[before.length - 1 - tail] === text[text.length - 1 - tail])
    tail++;
  return {
    source,
    after: text,
    bytes: Buffer.from(source.bom ? `\uFEFF${text}` : text, "utf8"),
    replacements,
    start,
    endBefore: before.length - tail,
    endAfter: text.length - tail,
  };
}

function diffOf(p: Plan): string {
  return editDiff(p.source.rel, p.source.text, p.after, p.start, p.endBefore, p.endAfter);
}

async function execute(args: Args, ctx: ToolContext): Promise<ToolExecutionResult> {
  const p = await plan(args, ctx);
  assertSeen(ctx, p.source.resolved.absolute, p.source.rel, "make the edits");
  await atomicWriteFile(p.source.resolved.absolute, p.bytes);
  ctx.reads?.saw(p.source.resolved.absolute);
  const [first, last] = linesAt(p.after, [p.start, Math.max(p.start, p.endAfter - 1)]) as [number, number];
  const shown = numberedSpan(p.after, lineSpan(p.after, p.start, Math.max(p.start, p.endAfter - 1), 1, 1), 40);
  const n = args.edits.length;
  return {
    content:
      `Edited "${p.source.rel}": applied ${n} edit${n === 1 ? "" : "s"} (${p.replacements} replacement${p.replacements === 1 ? "" : "s"}), ` +
      `changing ${first === last ? `line ${first}` : `lines ${first}–${last}`}. The result there:\n${shown}`,
    displayContent: diffOf(p),
    structured: { path: p.source.rel, edits: n, replacements: p.replacements, lines: [first, last], size: p.bytes.length },
    metadata: { path: p.source.rel, edits: n, replacements: p.replacements },
    changedPaths: [{ path: p.source.rel, operation: "modified" }],
  };
}

/** multi_edit: several exact replacements in one file, applied together or not at all. */
export const multiEditTool = defineTool({
  name: TOOL.multiEdit,
  title: "Edit file in several places",
  description: loadDescription(import.meta.url, "multi-edit.txt"),
  input,
  effect: "write",
  describeCall: describePaths("Edit"),
  scope: { kind: "path", subjects: (args, ctx) => pathSubjects(ctx, [args.path], true) },
  access: (args, ctx) => ({ writes: accessPaths(ctx, [args.path], true) }),
  preview: async (args, ctx) => {
    const p = await plan(args, ctx);
    return staleNote(ctx, p.source.resolved.absolute, p.source.rel) + diffOf(p);
  },
  execute,
});
