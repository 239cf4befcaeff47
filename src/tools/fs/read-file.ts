import { closeSync, readSync, type Stats } from "node:fs";
import { z } from "zod";
import { iconv } from "../../net/charset.js";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import type { ToolExecutionResult } from "../../core/result.js";
import type { ToolContext } from "../../core/tool.js";
import { IMAGE_MIME_TYPES, SNIFF_BYTES, sniffContent, type ContentKind } from "./binary.js";
import { decodeText, readLineWindow, readTailLines } from "./line-window.js";
import { numberLines, numberText, type NumberedWindow } from "./numbered.js";
import type { ResolvedPath } from "../../workspace/workspace.js";
import { outsideRepositoryHint, resolveForRead } from "./read-path.js";
import { TOOL } from "../names.js";
import { formatBytes, lexicalRelative, notFound, statOrUndefined, describePaths } from "./common.js";
import { reportProgress } from "../progress.js";
import { pdfText } from "./pdf-text.js";
import { openResolvedSync, readResolved } from "../../workspace/no-follow.js";
import { formatCount } from "../../core/format-count.js";
import { importAtRuntime } from "../../process/import-at-runtime.js";

/** Lines returned when no limit is given. */
export const DEFAULT_READ_LINES = 2000;
/** Longest line shown whole; longer ones are cut with a notice. */
export const MAX_LINE_CHARS = 2000;
/** Most characters of file text in one answer (below the runner's cap, so the next offset is always given). */
export const MAX_READ_CHARS = 60_000;
/** Largest image returned as an image block (the model APIs' own limit is about 5 MB). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Largest file returned whole as base64. */
export const MAX_BASE64_BYTES = 5 * 1024 * 1024;
/** Largest .docx or UTF-16 file converted in memory. */
const MAX_CONVERTED_BYTES = 50 * 1024 * 1024;
/** Files up to this size get their total line count (one extra fast scan). */
const COUNT_TOTAL_BELOW = 32 * 1024 * 1024;

const input = z.object({
  path: z.string().describe("File to read, relative to the workspace root (absolute paths inside the workspace also work)."),
  offset: z
    .number()
    .int()
    .optional()
    .describe("First line to read, 1-based. Negative counts from the end: -100 starts 100 lines before the end (like tail)."),
  limit: z.number().int().positive().optional().describe(`Most lines to read (default ${DEFAULT_READ_LINES}).`),
  encoding: z
    .enum(["utf-8", "utf8", "base64"])
    .optional()
    .describe('"utf-8" (default): text with line numbers. "base64": the raw bytes, base64-encoded (files up to 5 MB).'),
});

type Args = z.output<typeof input>;

const output = z.object({
  content: z.string().describe("The text read (without line numbers), or the base64 bytes."),
  size: z.number().describe("File size in bytes."),
  modified: z.string().describe("Last modification time, ISO 8601."),
  path: z.string().optional(),
  encoding: z.string().optional(),
  kind: z.enum(["text", "image", "binary", "docx", "pdf"]).optional(),
  startLine: z.number().optional(),
  endLine: z.number().optional(),
  totalLines: z.number().optional(),
  hasMore: z.boolean().optional(),
  nextOffset: z.number().optional(),
});

/**
 * {@link resolveForRead}, once per call: scope, access and execute share the answer. Synchronous,
 * like the resolution itself: every read passes here twice, and a promise costs a turn each time.
 */
function resolvedOnce(ctx: ToolContext, given: string): ResolvedPath {
  return ctx.memo.once(`read:${given}`, () => resolveForRead(ctx.workspace, given));
}

/** Files up to this size are read whole, once, for the sniff and the text; larger ones are streamed. */
const WHOLE_TEXT_MAX = 256 * 1024;

/**
 * Where reads land, kept from call to call: a small read then allocates no buffer of its own
 * (nor leaves one for the collector). Grown to fit, never past a whole small file.
 */
let landing: Buffer | undefined;

/**
 * The first bytes of a file, read synchronously (a few syscalls cost less than thread-pool round
 * trips), and the whole file when it is small: then it is read once, for the sniff and the text.
 * The bytes are views of {@link landing}: use them before awaiting anything, when another call
 * may read over them.
 */
function readStart(file: string, size: number): { start: Buffer; whole?: Buffer } {
  const fd = openResolvedSync(file);
  try {
    const small = size <= WHOLE_TEXT_MAX;
    // One byte more than the file held at stat shows whether it has grown since.
    const wanted = small ? size + 1 : Math.min(SNIFF_BYTES, size);
    if (!landing || landing.length < wanted) {
      // Doubling, so a run of growing files does not allocate at every call.
      landing = Buffer.allocUnsafeSlow(Math.min(WHOLE_TEXT_MAX + 1, Math.max(wanted, 2 * (landing?.length ?? 16 * 1024))));
    }
    const buf = landing;
    let filled = 0;
    while (filled < wanted) {
      const n = readSync(fd, buf, filled, wanted - filled, filled);
      filled += n;
      // Everything stat promised, from a read that stopped short of the byte asked beyond it: the
      // end of the file, without one more read to hear so.
      if (n === 0 || (small && filled === size)) break;
    }
    const start = buf.subarray(0, Math.min(filled, SNIFF_BYTES));
    return small && filled <= size ? { start, whole: buf.subarray(0, filled) } : { start };
  } finally {
    closeSync(fd);
  }
}

interface Meta {
  rel: string;
  st: Stats;
}

function base(meta: Meta) {
  return { path: meta.rel, size: meta.st.size, modified: meta.st.mtime.toISOString() };
}

async function readBase64(file: string, meta: Meta): Promise<ToolExecutionResult> {
  if (meta.st.size > MAX_BASE64_BYTES) {
    throw new ToolError(
      "INVALID_ARGS",
      `"${meta.rel}" is ${formatBytes(meta.st.size)}; base64 reads are limited to ` +
        `${formatBytes(MAX_BASE64_BYTES)}. Read it as text with offset and limit, or process it with a shell command.`,
    );
  }
  const data = (await readResolved(file)).toString("base64");
  return {
    content: data,
    displayContent: `${meta.rel}: ${formatBytes(meta.st.size)} as base64`,
    structured: { content: data, ...base(meta), encoding: "base64" },
    metadata: base(meta),
  };
}

function describeBinary(meta: Meta, kind: ContentKind, reason?: string): ToolExecutionResult {
  const label = kind.label ?? "binary data";
  const why = reason ?? "its bytes are not shown as text";
  const how =
    meta.st.size <= MAX_BASE64_BYTES
      ? `Read it with encoding "base64" to get the raw bytes.`
      : `It is too large for a base64 read (limit ${formatBytes(MAX_BASE64_BYTES)}); inspect it with a shell command instead.`;
  const content = `"${meta.rel}" is a binary file (${label}, ${formatBytes(meta.st.size)}, modified ${meta.st.mtime.toISOString()}); ${why}. ${how}`;
  return {
    content,
    structured: { content: "", ...base(meta), kind: "binary" },
    metadata: { ...base(meta), binary: true, ...(kind.mimeType ? { mimeType: kind.mimeType } : {}) },
  };
}

async function execute(args: Args, ctx: ToolContext): Promise<ToolExecutionResult> {
  const resolved = resolvedOnce(ctx, args.path);
  const rel = ctx.workspace.display(resolved);
  const st = statOrUndefined(resolved.absolute);
  if (!st) {
    const missing = await notFound(ctx, resolved);
    const outside = outsideRepositoryHint(ctx.workspace, args.path);
    throw outside ? new ToolError(missing.code, missing.message + outside) : missing;
  }
  if (st.isDirectory()) {
    throw new ToolError("INVALID_PATH", `"${rel}" is a directory, not a file. Use list_directory to see what it contains.`);
  }
  if (!st.isFile()) {
    throw new ToolError("INVALID_PATH", `"${rel}" is not a regular file (a device, socket or pipe); read_file only reads files.`);
  }
  const result = await readKind(args, ctx, resolved.absolute, { rel, st });
  // What the model now knows of the file, for the stale-edit guard: the state it was read in.
  ctx.reads?.saw(resolved.absolute, st);
  return result;
}

/** The file at `absolute` (a regular file, stat in `meta`) as text, an image, or a description. */
async function readKind(args: Args, ctx: ToolContext, absolute: string, meta: Meta): Promise<ToolExecutionResult> {
  const { rel, st } = meta;
  const resolved = { absolute };
  if (args.encoding === "base64") return readBase64(resolved.absolute, meta);

  const offset = args.offset === undefined || args.offset === 0 ? 1 : args.offset;
  const limit = args.limit ?? DEFAULT_READ_LINES;
  const wanted = { offset, limit, maxLineChars: MAX_LINE_CHARS, maxChars: MAX_READ_CHARS };

  if (resolved.absolute.toLowerCase().endsWith(".docx")) {
    if (st.size > MAX_CONVERTED_BYTES) {
      throw new ToolError(
        "INVALID_ARGS",
        `"${rel}" is ${formatBytes(st.size)}; .docx files up to ${formatBytes(MAX_CONVERTED_BYTES)} are converted to text.`,
      );
    }
    let text: string;
    try {
      // mammoth loads only for .docx: it costs ~150 ms at start-up otherwise.
      const { default: mammoth } = await importAtRuntime<{ default: typeof import("mammoth") }>("mammoth");
      text = (await mammoth.extractRawText({ path: resolved.absolute })).value;
    } catch (err) {
      return describeBinary(
        meta,
        { kind: "binary", label: "a .docx that could not be opened" },
        `it could not be converted to text (${(err as Error).message})`,
      );
    }
    return textResult(meta, numberText(text, wanted), offset, "docx", "converted from .docx");
  }

  // Nothing is awaited from here until the bytes read are decoded (see readStart).
  const read = readStart(resolved.absolute, st.size);
  const kind = sniffContent(read.start);
  if (kind.kind === "image" && kind.mimeType && IMAGE_MIME_TYPES.has(kind.mimeType)) {
    if (st.size > MAX_IMAGE_BYTES) {
      return describeBinary(meta, kind, `it is larger than ${formatBytes(MAX_IMAGE_BYTES)}, the most returned as an image`);
    }
    const data = (read.whole ?? (await readResolved(resolved.absolute))).toString("base64");
    return {
      content: `"${rel}" is a ${kind.label} (${formatBytes(st.size)}, modified ${st.mtime.toISOString()}); the image is attached.`,
      blocks: [{ type: "image", data, mimeType: kind.mimeType }],
      structured: { content: "", ...base(meta), kind: "image" },
      metadata: { ...base(meta), mimeType: kind.mimeType },
    };
  }
  if (kind.mimeType === "application/pdf") return readPdf(ctx, meta, read.whole ?? resolved.absolute, wanted);
  if (kind.kind !== "text") return describeBinary(meta, kind);

  if (kind.encoding === "utf-16le" || kind.encoding === "utf-16be") {
    if (st.size > MAX_CONVERTED_BYTES)
      return describeBinary(
        meta,
        { kind: "binary", label: "UTF-16 text" },
        `UTF-16 files up to ${formatBytes(MAX_CONVERTED_BYTES)} are read`,
      );
    const text = iconv().decode(read.whole ?? (await readResolved(resolved.absolute)), kind.encoding);
    return textResult(meta, numberText(text, wanted), offset, "text", `decoded from ${kind.encoding.toUpperCase()}`);
  }

  const encoding = kind.encoding === "windows-1252" ? ("windows-1252" as const) : ("utf-8" as const);
  const note = encoding === "windows-1252" ? "not valid UTF-8; decoded as windows-1252" : undefined;
  if (read.whole) {
    const text = decodeText(read.whole.subarray(kind.bomLength ?? 0), encoding);
    return textResult(meta, numberText(text, wanted), offset, "text", note);
  }

  return readStreamed(ctx, resolved.absolute, meta, kind, { offset, limit, encoding, note });
}

/** A PDF's text, page by page, as a numbered window like any text (pages marked). */
async function readPdf(
  ctx: ToolContext,
  meta: Meta,
  source: Uint8Array | string,
  wanted: Parameters<typeof numberText>[1],
): Promise<ToolExecutionResult> {
  if (meta.st.size > MAX_CONVERTED_BYTES) {
    return describeBinary(
      meta,
      { kind: "binary", label: "PDF document" },
      `PDFs up to ${formatBytes(MAX_CONVERTED_BYTES)} are converted to text`,
    );
  }
  const bytes = typeof source === "string" ? await readResolved(source) : source;
  let pdf;
  try {
    // pdf.js takes its input over: a copy leaves the caller's buffer alone.
    pdf = await pdfText(new Uint8Array(bytes), ctx.signal);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    const why =
      (err as Error).name === "PasswordException" ? "it is encrypted with a password" : `it could not be read (${(err as Error).message})`;
    return describeBinary(meta, { kind: "binary", label: "PDF document" }, why);
  }
  const text = pdf.pages.map((page, i) => `--- page ${i + 1} of ${pdf.total} ---\n${page}`).join("\n\n");
  const empty = pdf.pages.every((p) => p.trim() === "");
  const cut = pdf.total > pdf.pages.length ? `; only the first ${formatCount(pdf.pages.length)} pages` : "";
  const note = empty
    ? `converted from PDF, ${formatCount(pdf.total)} page${pdf.total === 1 ? "" : "s"}: it has no text layer (scanned pages are images)`
    : `converted from PDF, ${formatCount(pdf.total)} page${pdf.total === 1 ? "" : "s"}${cut}`;
  return textResult(meta, numberText(text, wanted), wanted.offset, "pdf", note);
}

/**
 * A file too large to read whole: the window asked for, streamed, with progress. Apart from
 * execute, so a small read does not set up this path's closures.
 */
async function readStreamed(
  ctx: ToolContext,
  file: string,
  meta: Meta,
  kind: ContentKind,
  ask: { offset: number; limit: number; encoding: "utf-8" | "windows-1252"; note: string | undefined },
): Promise<ToolExecutionResult> {
  const { offset, limit, encoding, note } = ask;
  const fileSize = meta.st.size;
  let readSoFar = 0;
  const stopProgress = reportProgress(ctx, () => ({
    progress: readSoFar,
    total: fileSize,
    message: `read ${formatCount(readSoFar)} of ${formatCount(fileSize)} bytes`,
  }));
  const common = {
    maxLineChars: MAX_LINE_CHARS,
    maxChars: MAX_READ_CHARS,
    encoding,
    startByte: kind.bomLength ?? 0,
    signal: ctx.signal,
    onRead: (position: number) => void (readSoFar = position),
  };
  try {
    if (offset < 0) {
      const from = -offset;
      const count = Math.min(limit, from);
      // Small files are counted so lines keep their ordinary numbers.
      if (fileSize <= COUNT_TOTAL_BELOW) {
        const counted = await readLineWindow(file, { ...common, offset: Number.MAX_SAFE_INTEGER, limit: 1, countTotal: true });
        const total = counted.totalLines ?? 0;
        const start = Math.max(1, total - from + 1);
        const window = await readLineWindow(file, {
          ...common,
          offset: start,
          limit: Math.min(count, total - start + 1 || 1),
          countTotal: true,
        });
        return textResult(meta, numberLines(window, MAX_LINE_CHARS), start, "text", note);
      }
      const tail = await readTailLines(file, count, from - count, common);
      return textResult(
        meta,
        numberLines(
          { lines: tail.lines, hasMore: from - count > 0, stoppedForSize: false, reachedStart: tail.reachedStart && !tail.stoppedForSize },
          MAX_LINE_CHARS,
        ),
        offset,
        "text",
        note,
        true,
      );
    }
    const window = await readLineWindow(file, { ...common, offset, limit, countTotal: fileSize <= COUNT_TOTAL_BELOW });
    return textResult(meta, numberLines(window, MAX_LINE_CHARS), offset, "text", note);
  } finally {
    stopProgress();
  }
}

function textResult(
  meta: Meta,
  window: NumberedWindow,
  offset: number,
  kind: "text" | "docx" | "pdf",
  note: string | undefined,
  fromEnd = false,
): ToolExecutionResult {
  const total = window.totalLines;
  if (window.count === 0) {
    if (meta.st.size === 0 || total === 0) {
      return {
        content: `"${meta.rel}" is empty (0 lines).`,
        structured: { content: "", ...base(meta), totalLines: 0 },
        metadata: { ...base(meta), totalLines: 0 },
      };
    }
    if (!fromEnd && total !== undefined && offset > total) {
      throw new ToolError(
        "INVALID_ARGS",
        `offset ${offset} is past the end of "${meta.rel}", which has ${formatCount(total)} ` +
          `lines. Use an offset from 1 to ${total}, or a negative offset to read from the end.`,
      );
    }
    if (!fromEnd) {
      throw new ToolError(
        "INVALID_ARGS",
        `offset ${offset} is past the end of "${meta.rel}". Use a smaller offset, or a negative offset (-100) to read the end of the file.`,
      );
    }
  }
  const first = window.first ?? offset;
  const last = window.last ?? offset;
  const notices: string[] = [];
  if (note) notices.push(`(${note})`);
  let nextOffset: number | undefined;
  if (fromEnd) {
    const n = window.count || 100;
    const parts = [
      `[Lines ${first} to ${last}, numbered from the end of this ${formatBytes(meta.st.size)} ` +
        `file (-1 is the last line; the file is too large to number from the start).`,
    ];
    if (window.hasMore) {
      nextOffset = last + 1;
      parts.push(`Later lines: offset ${nextOffset}.`);
    }
    if (!window.reachedStart) parts.push(`Earlier lines: offset ${first - n}, limit ${n}.`);
    notices.push(`${parts.join(" ")}]`);
  } else if (window.hasMore || window.stoppedForSize) {
    nextOffset = last + 1;
    const of = total !== undefined ? ` of ${formatCount(total)}` : "";
    const why = window.stoppedForSize ? ` (stopped at ${formatCount(MAX_READ_CHARS)} characters)` : "";
    notices.push(`[Showing lines ${first}–${last}${of}${why}. The file continues: read on with offset ${nextOffset}.]`);
  } else if (first > 1 && total !== undefined) {
    notices.push(`[Lines ${first}–${last} of ${formatCount(total)}; end of file.]`);
  }
  const { numbered: body, raw } = window;
  const content = notices.length ? `${body}\n${notices.join("\n")}` : body;
  // Added to, not spread from base(): spreading a fresh object first costs several times more
  // (3 µs of a ~60 µs call, measured).
  const metadata: Record<string, unknown> = base(meta);
  metadata.kind = kind;
  metadata.startLine = first;
  metadata.endLine = last;
  metadata.hasMore = nextOffset !== undefined;
  if (total !== undefined) metadata.totalLines = total;
  if (nextOffset !== undefined) metadata.nextOffset = nextOffset;
  return { content, structured: { content: raw, ...metadata }, metadata };
}

/** read_file: text with line numbers, a window of huge files by streaming, images as image blocks. */
export const readFileTool = defineTool({
  name: TOOL.readFile,
  title: "Read file",
  description: loadDescription(import.meta.url, "read-file.txt"),
  input,
  output,
  effect: "read",
  describeCall: describePaths("Read"),
  scope: {
    kind: "path",
    subjects: (args, ctx) => {
      const shown = ctx.workspace.display(resolvedOnce(ctx, args.path));
      const lexical = lexicalRelative(ctx.workspace, args.path);
      return lexical === undefined || lexical === shown ? [shown] : [shown, lexical];
    },
  },
  access: (args, ctx) => {
    try {
      return { reads: [ctx.workspace.display(resolvedOnce(ctx, args.path))] };
    } catch {
      return { reads: [] };
    }
  },
  execute,
});
