import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import { formatCount } from "../../core/format-count.js";
import { mapLimit } from "../../core/map-limit.js";
import type { ToolExecutionResult } from "../../core/result.js";
import type { ToolContext } from "../../core/tool.js";
import { applyAllOrNone, type FileChange } from "../../workspace/file-transaction.js";
import { recordVacated } from "../../workspace/vacated.js";
import { TOOL } from "../names.js";
import { resolveArg } from "../resolve-arg.js";
import {
  accessPaths,
  assertNotRoot,
  formatBytes,
  lstatOrUndefined,
  namesFolder,
  pathSubjects,
  statOrUndefined,
  describePaths,
} from "./common.js";
import { target } from "./delete-file.js";
import { readEditable } from "./edit-file.js";
import { applyHunks, type HunkPlace } from "./patch-apply.js";
import { parsePatch, type FilePatch } from "./patch-parse.js";

/** Largest patch text accepted; more is a rewrite better done file by file. */
export const MAX_PATCH_CHARS = 8 * 1024 * 1024;
/** Most files one patch may touch. */
export const MAX_PATCH_FILES = 1000;
/** Longest preview shown to the person approving; the rest is summarised. */
const MAX_PREVIEW_CHARS = 60_000;

const input = z.object({
  patch: z
    .string()
    .max(MAX_PATCH_CHARS)
    .describe("The patch: a unified diff (as git diff prints it) or a *** Begin Patch … *** End Patch envelope."),
});

type Args = z.output<typeof input>;

const output = z.object({
  files: z.array(
    z.object({
      path: z.string().describe("The file, relative to the workspace root (its new name after a move)."),
      operation: z.enum(["added", "updated", "moved", "deleted"]),
      from: z.string().optional().describe("The old name of a moved file."),
      hunks: z.number().describe("Hunks applied to it."),
    }),
  ),
});

type Changed = NonNullable<ToolExecutionResult["changedPaths"]>[number];

/** One file's part of the plan, checked and worked out in memory. */
interface Step {
  op: "added" | "updated" | "moved" | "deleted";
  rel: string;
  absolute: string;
  /** For a move: where the file goes. */
  dest?: { rel: string; absolute: string };
  before: string;
  after: string;
  bom: boolean;
  places: HunkPlace[];
  /** The hunks as they applied, as unified diff lines. */
  diff: string[];
  mode?: number;
}

/** Every path a patch names, as written: what permission rules and the sensitive-file check judge. */
function namedPaths(files: readonly FilePatch[]): string[] {
  return files.flatMap((f) => (f.kind === "update" && f.moveTo !== undefined ? [f.path, f.moveTo] : [f.path]));
}

const parsed = (args: Args, ctx: ToolContext) => ctx.memo.once("patch", () => checkedParse(args.patch));

function checkedParse(patch: string) {
  const p = parsePatch(patch);
  if (p.files.length > MAX_PATCH_FILES) {
    throw new ToolError(
      "INVALID_ARGS",
      `The patch touches ${formatCount(p.files.length)} files; apply_patch takes at most ${formatCount(MAX_PATCH_FILES)}. Split it.`,
    );
  }
  return p;
}

/** A path a patch creates: a file name inside the workspace where nothing is yet. */
function newFile(ctx: ToolContext, given: string, what: string): { rel: string; absolute: string } {
  if (namesFolder(given)) throw new ToolError("INVALID_PATH", `"${given}" names a folder; ${what} needs the path of a file.`);
  const resolved = resolveArg(ctx, given, true);
  assertNotRoot(resolved, "replace");
  const rel = ctx.workspace.display(resolved);
  const st = lstatOrUndefined(resolved.absolute);
  if (st) {
    throw new ToolError(
      "INVALID_ARGS",
      `${what} "${rel}", but it already exists${st.isDirectory() ? " as a folder" : ""}. ` +
        `Send its change as an update (a diff against what it holds now), or choose another name. Nothing was changed.`,
    );
  }
  return { rel, absolute: resolved.absolute };
}

/** Files planned at once: their reads overlap. */
const PARALLEL = 16;

/** Worked out afresh by preview and by execute: a file may change while a person looks at the diff. */
async function plan(args: Args, ctx: ToolContext): Promise<Step[]> {
  const { files } = parsed(args, ctx);
  // Each file once: a second change to a path would be planned against what the first replaces.
  const seen = new Set<string>();
  for (const written of namedPaths(files)) {
    const rel = ctx.workspace.display(resolveArg(ctx, written, true));
    if (seen.has(rel)) {
      throw new ToolError("INVALID_ARGS", `The patch changes "${rel}" twice; give each file's changes once. Nothing was changed.`);
    }
    seen.add(rel);
  }
  return mapLimit(files, PARALLEL, (f) => planFile(f, ctx));
}

async function planFile(f: FilePatch, ctx: ToolContext): Promise<Step> {
  if (f.kind === "add") {
    const to = newFile(ctx, f.path, "The patch adds");
    return { op: "added", ...to, before: "", after: f.text, bom: false, places: [], diff: [] };
  }
  if (f.kind === "delete" && f.hunks.length === 0) {
    const t = target(ctx, f.path);
    const st = lstatOrUndefined(t.absolute);
    if (!st) throw new ToolError("FILE_NOT_FOUND", `The patch deletes "${t.rel}", which does not exist. Nothing was changed.`);
    if (st.isDirectory()) {
      throw new ToolError(
        "INVALID_ARGS",
        `The patch deletes "${t.rel}", which is a folder; delete_file removes folders. Nothing was changed.`,
      );
    }
    return { op: "deleted", rel: t.rel, absolute: t.absolute, before: "", after: "", bom: false, places: [], diff: [] };
  }
  const source = await readEditable(f.path, ctx, "apply_patch");
  const { text, places, diff } = applyHunks(source.text, f.hunks, source.rel);
  const base = { rel: source.rel, absolute: source.resolved.absolute, before: source.text, after: text, bom: source.bom, places, diff };
  if (f.kind === "delete") {
    if (text !== "") {
      throw new ToolError(
        "INVALID_ARGS",
        `The patch deletes "${source.rel}", but its removed lines leave ${formatCount(text.split("\n").length)} lines of the file unaccounted for: ` +
          `it changed since the patch was made. Read it again. Nothing was changed.`,
      );
    }
    return { op: "deleted", ...base };
  }
  if (f.moveTo !== undefined && resolveArg(ctx, f.moveTo, true).absolute !== source.resolved.absolute) {
    const dest = newFile(ctx, f.moveTo, `The patch moves "${source.rel}" to`);
    return { op: "moved", ...base, dest, mode: (statOrUndefined(source.resolved.absolute)?.mode ?? 0o644) & 0o777 };
  }
  if (text === source.text && f.hunks.length) {
    throw new ToolError("INVALID_ARGS", `The patch leaves "${source.rel}" as it is; its hunks change nothing. Nothing was changed.`);
  }
  return { op: "updated", ...base };
}

const bytesOf = (s: Step) => Buffer.from(s.bom ? `\uFEFF${s.after}` : s.after, "utf8");

/** The person's view of the patch: each file's hunks as they will apply (built from them, not diffed again). */
function preview(steps: readonly Step[]): string {
  const parts = steps.map((s) => {
    switch (s.op) {
      case "added": {
        const lines = s.after === "" ? [] : s.after.replace(/\n$/, "").split("\n");
        const body = lines.length ? `@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join("\n")}\n` : "";
        return `--- /dev/null\n+++ b/${s.rel}\n${body}`;
      }
      case "deleted":
        return `Delete ${s.rel}${s.before ? ` (${formatCount(s.before.split("\n").length - (s.before.endsWith("\n") ? 1 : 0))} lines)` : ""}.\n`;
      case "moved":
        return `Move ${s.rel} → ${s.dest!.rel}.\n${s.diff.length ? `--- a/${s.rel}\n+++ b/${s.dest!.rel}\n${s.diff.join("\n")}\n` : ""}`;
      case "updated":
        return `--- a/${s.rel}\n+++ b/${s.rel}\n${s.diff.join("\n")}\n`;
    }
  });
  const head = `Apply a patch to ${formatCount(steps.length)} file${steps.length === 1 ? "" : "s"}:\n`;
  let out = head;
  for (let i = 0; i < parts.length; i++) {
    if (out.length + parts[i]!.length > MAX_PREVIEW_CHARS) {
      const rest = steps.slice(i).map((s) => `${s.op} ${s.dest ? `${s.rel} → ${s.dest.rel}` : s.rel}`);
      return `${out}... (the diffs of ${formatCount(rest.length)} more files not shown: ${rest.slice(0, 50).join(", ")}${rest.length > 50 ? ", …" : ""})\n`;
    }
    out += parts[i];
  }
  return out;
}

function whereHunks(places: readonly HunkPlace[]): string {
  if (!places.length) return "";
  const spans = places.slice(0, 8).map((p) => (p.lines <= 1 ? `${p.line}` : `${p.line}–${p.line + p.lines - 1}`));
  const lines = places.length === 1 && places[0]!.lines <= 1 ? "line" : "lines";
  return ` (${places.length} hunk${places.length === 1 ? "" : "s"}, now at ${lines} ${spans.join(", ")}${places.length > 8 ? ", …" : ""})`;
}

async function execute(args: Args, ctx: ToolContext): Promise<ToolExecutionResult> {
  const steps = await plan(args, ctx);
  const changes: FileChange[] = steps.flatMap((s): FileChange[] => {
    switch (s.op) {
      case "added":
      case "updated":
        return [{ kind: "write", absolute: s.absolute, bytes: bytesOf(s) }];
      case "moved":
        return [
          { kind: "write", absolute: s.dest!.absolute, bytes: bytesOf(s), ...(s.mode !== undefined ? { mode: s.mode } : {}) },
          { kind: "remove", absolute: s.absolute },
        ];
      case "deleted":
        return [{ kind: "remove", absolute: s.absolute }];
    }
  });
  if (ctx.signal.aborted) throw ctx.signal.reason;
  await applyAllOrNone(changes);
  for (const s of steps) {
    if (s.op === "moved" || s.op === "deleted") recordVacated(ctx.workspace.root, s.absolute);
    // The hunks' context matched what the file held, and the model wrote the rest: it knows the result.
    if (s.op !== "deleted") ctx.reads?.saw(s.dest?.absolute ?? s.absolute);
  }
  const lines = steps.map((s) => {
    switch (s.op) {
      case "added":
        return `- added ${s.rel} (${formatBytes(Buffer.byteLength(s.after))})`;
      case "deleted":
        return `- deleted ${s.rel}`;
      case "moved":
        return `- moved ${s.rel} → ${s.dest!.rel}${whereHunks(s.places)}`;
      case "updated":
        return `- updated ${s.rel}${whereHunks(s.places)}`;
    }
  });
  const modes = parsed(args, ctx).files.some((f) => f.kind === "update" && f.modeChange);
  return {
    content:
      `Applied the patch to ${formatCount(steps.length)} file${steps.length === 1 ? "" : "s"}:\n${lines.join("\n")}` +
      (modes ? "\nFile mode changes in the patch were not applied (tools do not make files executable)." : ""),
    displayContent: preview(steps),
    structured: {
      files: steps.map((s) => ({
        path: s.dest?.rel ?? s.rel,
        operation: s.op,
        ...(s.dest ? { from: s.rel } : {}),
        hunks: s.places.length,
      })),
    },
    metadata: { files: steps.length },
    changedPaths: steps.flatMap((s): Changed[] =>
      s.op === "moved"
        ? [
            { path: s.rel, operation: "moved" },
            { path: s.dest!.rel, operation: "created" },
          ]
        : [{ path: s.rel, operation: s.op === "added" ? "created" : s.op === "deleted" ? "deleted" : "modified" }],
    ),
  };
}

/** apply_patch: one patch over several files (unified diff or Codex's envelope), approved once, applied all or none. */
export const applyPatchTool = defineTool({
  name: TOOL.applyPatch,
  title: "Apply patch",
  description: loadDescription(import.meta.url, "apply-patch.txt"),
  input,
  parameterAliases: { input: "patch", diff: "patch" },
  output,
  effect: "write",
  describeCall: describePaths("Patch"),
  scope: { kind: "path", subjects: (args, ctx) => pathSubjects(ctx, namedPaths(parsed(args, ctx).files), true) },
  access: (args, ctx) => {
    try {
      return { writes: accessPaths(ctx, namedPaths(parsed(args, ctx).files), true) };
    } catch {
      return { writes: [] }; // a patch that does not parse fails in execute, touching nothing
    }
  },
  // Removing a file is judged as delete_file's removals are.
  assess: (args, ctx) => (parsed(args, ctx).files.some((f) => f.kind === "delete") ? { effect: "destructive" } : undefined),
  preview: async (args, ctx) => preview(await plan(args, ctx)),
  execute,
});
