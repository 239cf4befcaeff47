import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import type { ToolExecutionResult } from "../../core/result.js";
import type { ToolContext } from "../../core/tool.js";
import { atomicWriteFile } from "../../workspace/atomic-write.js";
import { isValidUtf8 } from "./binary.js";
import type { ResolvedPath } from "../../workspace/workspace.js";
import { TOOL } from "../names.js";
import { accessPaths, assertSeen, staleNote, formatBytes, notFound, pathSubjects, statOrUndefined, describePaths } from "./common.js";
import { resolveArg } from "../resolve-arg.js";
import { editDiff } from "./preview.js";
import { lineSpan, type LineSpan } from "./line-span.js";
import { assertWritableFile } from "./write-file.js";
import { readResolved } from "../../workspace/no-follow.js";

/** Largest file edit_file works on. */
export const MAX_EDIT_BYTES = 10 * 1024 * 1024;

const input = z.object({
  path: z.string().describe("File to edit, relative to the workspace root."),
  old: z
    .string()
    .describe(
      "The exact text to replace, including whitespace and indentation. " +
        "Must match exactly once unless replace_all or expected_replacements says otherwise.",
    ),
  new: z.string().describe("The text to put in its place."),
  replace_all: z.boolean().default(false).describe("Replace every occurrence of old (default false)."),
  expected_replacements: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("Exactly how many occurrences must be replaced; the edit fails if the count differs."),
});

type Args = z.output<typeof input>;

interface Plan {
  resolved: ResolvedPath;
  rel: string;
  before: string;
  after: string;
  /** Bytes to write (BOM restored). */
  bytes: Buffer;
  replacements: number;
  /** 1-based line numbers where each replacement starts in the new text. */
  lines: number[];
  newLength: number;
  /** Where the changes lie: [start, endBefore) of `before` became [start, endAfter) of `after`. */
  start: number;
  endBefore: number;
  endAfter: number;
}

function positionsOf(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

/** 1-based line numbers of ascending positions in `text`, in one pass. */
export function linesAt(text: string, positions: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let nl = text.indexOf("\n");
  for (const at of positions) {
    while (nl !== -1 && nl < at) {
      line++;
      nl = text.indexOf("\n", nl + 1);
    }
    out.push(line);
  }
  return out;
}

const squash = (s: string) => s.replace(/\s+/g, " ").trim();
/** For the whitespace-insensitive check: spacing may differ in amount or be missing altogether. */
const strip = (s: string) => s.replace(/\s+/g, "");

function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < s.length - 1; i++) {
    const g = s.slice(i, i + 2);
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
}

/** Dice similarity of two strings' character pairs, 0..1. */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const x = bigrams(a);
  const y = bigrams(b);
  let common = 0;
  for (const [g, n] of x) common += Math.min(n, y.get(g) ?? 0);
  return (2 * common) / (a.length - 1 + b.length - 1);
}

function span(from: number, to: number): string {
  return from === to ? `Line ${from + 1}` : `Lines ${from + 1}–${to + 1}`;
}

function showLines(lines: readonly string[], from: number, to: number): string {
  const out: string[] = [];
  for (let i = from; i <= to && i < lines.length; i++) out.push(`${String(i + 1).padStart(6)}\t${lines[i]!.slice(0, 500)}`);
  return out.join("\n");
}

/**
 * Why `old` matched nowhere, with the nearest candidates: first a match that differs only in
 * whitespace, else the most similar lines. Nothing is ever applied from here.
 */
export function nearestCandidates(text: string, old: string, what = "The text given as old", use = "send its exact text as old"): string {
  const lines = text.split(/\r?\n/);
  const oldLines = old.split(/\r?\n/);
  while (oldLines.length > 1 && oldLines.at(-1)!.trim() === "") oldLines.pop();
  while (oldLines.length > 1 && oldLines[0]!.trim() === "") oldLines.shift();
  const k = oldLines.length;
  const want = oldLines.map(squash);
  const bare = oldLines.map(strip);
  const loose: number[] = [];
  if (bare.some((w) => w !== "")) {
    for (let i = 0; i + k <= lines.length && loose.length < 3; i++) {
      let ok = true;
      for (let j = 0; j < k && ok; j++) {
        const have = strip(lines[i + j]!);
        if (k === 1) ok = have.includes(bare[0]!);
        else if (j === 0) ok = have.endsWith(bare[0]!);
        else if (j === k - 1) ok = have.startsWith(bare[j]!);
        else ok = have === bare[j];
      }
      if (ok) loose.push(i);
    }
  }
  if (loose.length) {
    const shownMatches = loose.map((i) => `${span(i, i + k - 1)}:\n${showLines(lines, i, i + k - 1)}`).join("\n");
    return (
      `${what} was not found exactly, but it matches ${loose.length === 1 ? "this place" : "these places"} if whitespace ` +
      `(indentation, spaces, line breaks) is ignored:\n${shownMatches}\nCopy the exact ` +
      `text from the file (read_file shows it) and try again. Nothing was changed.`
    );
  }
  // Anchor on the most distinctive line of old, then score whole windows around the best anchors.
  const anchorIndex = want.reduce((best, w, i) => (w.length > want[best]!.length ? i : best), 0);
  const anchor = want[anchorIndex]!;
  const scored: Array<{ start: number; score: number }> = [];
  if (anchor.length >= 2) {
    const anchors = lines
      .map((l, i) => ({ i, s: similarity(squash(l), anchor) }))
      .filter((a) => a.s > 0.3)
      .sort((a, b) => b.s - a.s)
      .slice(0, 8);
    const target = want.join("\n");
    for (const a of anchors) {
      const start = Math.max(0, a.i - anchorIndex);
      const windowText = lines
        .slice(start, start + k)
        .map(squash)
        .join("\n");
      scored.push({ start, score: similarity(windowText, target) });
    }
  }
  scored.sort((a, b) => b.score - a.score);
  const distinct = scored.filter((s, i) => s.score >= 0.4 && scored.findIndex((t) => t.start === s.start) === i);
  // A second candidate only when it is nearly as good as the first; otherwise it is noise.
  const best = distinct.filter((s, i) => i === 0 || s.score >= Math.max(0.7, distinct[0]!.score - 0.15)).slice(0, 2);
  if (!best.length) {
    return (
      `${what} was not found in the file, and nothing similar was found either. ` +
      `Read the file with read_file and copy the exact text to replace. Nothing was changed.`
    );
  }
  const shownBest = best
    .map(
      (b) =>
        `${span(b.start, Math.min(lines.length, b.start + k) - 1)} (${Math.round(b.score * 100)}% similar):\n${showLines(lines, b.start, b.start + k - 1)}`,
    )
    .join("\n");
  return (
    `${what} was not found in the file. The most similar text is:\n${shownBest}\nIf ` +
    `this is what you meant, ${use}. Nothing was changed.`
  );
}

/** A file edit_file and multi_edit may change: checked, read, its byte-order mark set aside. */
export interface EditSource {
  resolved: ResolvedPath;
  rel: string;
  text: string;
  bom: boolean;
}

/** Reads the file at `path` for an edit: it must exist, be writable, UTF-8 text, and at most MAX_EDIT_BYTES. */
export async function readEditable(path: string, ctx: ToolContext, tool = "edit_file"): Promise<EditSource> {
  const resolved = resolveArg(ctx, path, true);
  const rel = ctx.workspace.display(resolved);
  const st = statOrUndefined(resolved.absolute);
  if (!st) throw await notFound(ctx, resolved);
  await assertWritableFile(resolved, rel);
  if (st.size > MAX_EDIT_BYTES) {
    throw new ToolError(
      "INVALID_ARGS",
      `"${rel}" is ${formatBytes(st.size)}; ${tool} works on files up to ${formatBytes(MAX_EDIT_BYTES)}. Use a shell tool (sed) for this file.`,
    );
  }
  const bytes = await readResolved(resolved.absolute);
  if (bytes.includes(0) || !isValidUtf8(bytes)) {
    throw new ToolError(
      "INVALID_ARGS",
      `"${rel}" is not UTF-8 text (binary, or another encoding); ${tool} only edits UTF-8 text. Replace it whole with write_file instead.`,
    );
  }
  let text = bytes.toString("utf8");
  const bom = text.startsWith("\uFEFF");
  if (bom) text = text.slice(1);
  return { resolved, rel, text, bom };
}

/** One replacement as edit_file and each of multi_edit's edits describe it. */
export interface EditSpec {
  old: string;
  new: string;
  replace_all: boolean;
  expected_replacements?: number | undefined;
}

/** `text` with one edit applied, where it applied, and where each replacement starts in the result. */
export interface Replaced {
  after: string;
  found: number[];
  oldText: string;
  newText: string;
  newStarts: number[];
}

/**
 * Applies `edit` to `text`: exact matches only (line endings adapted to the file's), as many as
 * replace_all or expected_replacements allow. Throws INVALID_ARGS saying where `old` matched, or
 * the nearest candidates when it matched nowhere; nothing is applied from a fuzzy match.
 */
export function replaceIn(text: string, edit: EditSpec): Replaced {
  if (edit.old === "")
    throw new ToolError("INVALID_ARGS", `old is empty; give the exact text to replace. To replace the whole file use write_file.`);
  if (edit.old === edit.new) throw new ToolError("INVALID_ARGS", `old and new are identical, so the edit would change nothing.`);
  let oldText = edit.old;
  let newText = edit.new;
  let found = positionsOf(text, oldText);
  if (found.length === 0 && text.includes("\r\n") && /(?<!\r)\n/.test(oldText)) {
    // The model wrote "\n" for a CRLF file: match with the file's line endings, and write them too.
    const crlf = (s: string) => s.replace(/\r?\n/g, "\r\n");
    oldText = crlf(oldText);
    newText = crlf(newText);
    found = positionsOf(text, oldText);
  } else if (found.length === 0 && oldText.includes("\r\n") && !text.includes("\r\n")) {
    const lf = (s: string) => s.replace(/\r\n/g, "\n");
    oldText = lf(oldText);
    newText = lf(newText);
    found = positionsOf(text, oldText);
  } else if (text.includes("\r\n") && !/(?<!\r)\n/.test(text) && /(?<!\r)\n/.test(newText)) {
    // A CRLF-only file stays CRLF-only even when the new text was written with "\n".
    newText = newText.replace(/\r?\n/g, "\r\n");
  }
  const count = found.length;
  if (count === 0) throw new ToolError("INVALID_ARGS", nearestCandidates(text, edit.old));
  const lineList = linesAt(text, found);
  const where = `line${lineList.length > 1 ? "s" : ""} ${lineList.slice(0, 10).join(", ")}${lineList.length > 10 ? ", …" : ""}`;
  if (edit.expected_replacements !== undefined) {
    if (count !== edit.expected_replacements) {
      throw new ToolError(
        "INVALID_ARGS",
        `old matches ${count} place${count === 1 ? "" : "s"} (${where}), but expected_replacements ` +
          `is ${edit.expected_replacements}. Nothing was changed; adjust old or expected_replacements.`,
      );
    }
  } else if (!edit.replace_all && count > 1) {
    throw new ToolError(
      "INVALID_ARGS",
      `old matches ${count} places (${where}); add surrounding context so it matches ` +
        `exactly one, or set replace_all to replace every one. Nothing was changed.`,
    );
  }
  // Replace by position, so "$" sequences in the new text stay literal.
  const parts: string[] = [];
  const newStarts: number[] = [];
  let last = 0;
  let length = 0;
  for (const at of found) {
    const kept = text.slice(last, at);
    parts.push(kept, newText);
    newStarts.push(length + kept.length);
    length += kept.length + newText.length;
    last = at + oldText.length;
  }
  parts.push(text.slice(last));
  return { after: parts.join(""), found, oldText, newText, newStarts };
}

async function plan(args: Args, ctx: ToolContext): Promise<Plan> {
  const source = await readEditable(args.path, ctx);
  const text = source.text;
  const r = replaceIn(text, args);
  const after = r.after;
  return {
    resolved: source.resolved,
    rel: source.rel,
    before: text,
    after,
    bytes: Buffer.from(source.bom ? `\uFEFF${after}` : after, "utf8"),
    replacements: r.found.length,
    lines: linesAt(after, r.newStarts),
    newLength: r.newText.split("\n").length,
    start: r.found[0]!,
    endBefore: r.found.at(-1)! + r.oldText.length,
    endAfter: r.newStarts.at(-1)! + r.newText.length,
  };
}

/** The new text around the first change, numbered: two lines above, the change, one below (30 at most). */
function snippet(p: Plan): string {
  return numberedSpan(p.after, lineSpan(p.after, p.start, p.start, 2, Math.min(p.newLength + 1, 30)), 31);
}

/** The lines of `text` in `span`, at most `max`, numbered as read_file numbers them. */
export function numberedSpan(text: string, span: LineSpan, max: number): string {
  const lines = text.slice(span.from, span.to).replace(/\n$/, "").split("\n").slice(0, max);
  return lines.map((l, i) => `${String(span.firstLine + i).padStart(6)}\t${l.replace(/\r$/, "").slice(0, 500)}`).join("\n");
}

function diffOf(p: Plan): string {
  return editDiff(p.rel, p.before, p.after, p.start, p.endBefore, p.endAfter);
}

async function execute(args: Args, ctx: ToolContext): Promise<ToolExecutionResult> {
  const p = await plan(args, ctx);
  assertSeen(ctx, p.resolved.absolute, p.rel, "make the edit");
  await atomicWriteFile(p.resolved.absolute, p.bytes);
  ctx.reads?.saw(p.resolved.absolute);
  const n = p.replacements;
  const where = p.lines.length === 1 ? `line ${p.lines[0]}` : `lines ${p.lines.slice(0, 10).join(", ")}${p.lines.length > 10 ? ", …" : ""}`;
  const content =
    `Edited "${p.rel}": replaced ${n} occurrence${n === 1 ? "" : "s"} (at ${where}). ` +
    `The result around the ${n === 1 ? "change" : "first change"}:\n${snippet(p)}`;
  return {
    content,
    displayContent: diffOf(p),
    structured: { path: p.rel, replacements: n, lines: p.lines, size: p.bytes.length },
    metadata: { path: p.rel, replacements: n, lines: p.lines },
    changedPaths: [{ path: p.rel, operation: "modified" }],
  };
}

/** edit_file (alias edit): exact search and replace; never a silent fuzzy match. */
export const editFileTool = defineTool({
  name: TOOL.editFile,
  title: "Edit file",
  description: loadDescription(import.meta.url, "edit-file.txt"),
  input,
  parameterAliases: { old_string: "old", new_string: "new" },
  effect: "write",
  describeCall: describePaths("Edit"),
  scope: { kind: "path", subjects: (args, ctx) => pathSubjects(ctx, [args.path], true) },
  access: (args, ctx) => ({ writes: accessPaths(ctx, [args.path], true) }),
  preview: async (args, ctx) => {
    const p = await plan(args, ctx);
    return staleNote(ctx, p.resolved.absolute, p.rel) + diffOf(p);
  },
  execute,
});
