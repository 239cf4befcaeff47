import { lazyRequire } from "../../process/lazy-require.js";
import { isValidUtf8 } from "./binary.js";
import { readResolved } from "../../workspace/no-follow.js";
import { formatBytes } from "./common.js";
import { lineSpan } from "./line-span.js";
import { formatCount } from "../../core/format-count.js";

/** Only calls that show a diff pay for loading the diff library. */
const diffLib = lazyRequire<typeof import("diff")>("diff");

/** Longest preview shown to the person approving; the rest is summarised. */
const MAX_PREVIEW_CHARS = 20_000;
/** Files larger than this are summarised rather than diffed. */
const MAX_DIFF_BYTES = 2 * 1024 * 1024;

/**
 * A unified diff between two texts, labelled with the file's workspace path. `firstLine` is the
 * line number of the texts' first line, when they are a region cut from a larger file.
 */
export function unifiedDiff(rel: string, before: string, after: string, created = false, firstLine = 1): string {
  const { FILE_HEADERS_ONLY, formatPatch, structuredPatch } = diffLib();
  const patch = structuredPatch(created ? "/dev/null" : `a/${rel}`, `b/${rel}`, before, after, undefined, undefined, { context: 3 });
  for (const hunk of patch.hunks) {
    hunk.oldStart += firstLine - 1;
    hunk.newStart += firstLine - 1;
  }
  const body = formatPatch(patch, FILE_HEADERS_ONLY);
  if (body.length <= MAX_PREVIEW_CHARS) return body;
  return `${body.slice(0, MAX_PREVIEW_CHARS)}\n... (${formatCount(body.length - MAX_PREVIEW_CHARS)} more characters of diff not shown)\n`;
}

/**
 * The diff of an edit that replaced [start, endBefore) of `before` with [start, endAfter) of
 * `after`: only the lines around the change are compared, so a one-line edit of a large file
 * costs what the change costs, not what the file does.
 */
export function editDiff(rel: string, before: string, after: string, start: number, endBefore: number, endAfter: number): string {
  const span = lineSpan(before, start, endBefore, 3, 3);
  const afterEnd = span.to - endBefore + endAfter;
  return unifiedDiff(rel, before.slice(span.from, span.to), after.slice(span.from, afterEnd), false, span.firstLine);
}

/**
 * The text of an existing file for a diff, or undefined when it is missing, binary or too
 * large to diff (then a summary is shown instead).
 */
export async function textForDiff(absolute: string, size: number): Promise<string | undefined> {
  if (size > MAX_DIFF_BYTES) return undefined;
  let bytes: Buffer;
  try {
    bytes = await readResolved(absolute);
  } catch {
    return undefined;
  }
  if (bytes.includes(0) || !isValidUtf8(bytes)) return undefined;
  return bytes.toString("utf8");
}

/** Preview of replacing (or creating) a file with `next`. */
export async function replacementPreview(rel: string, absolute: string, existingSize: number | undefined, next: Buffer): Promise<string> {
  const nextText = next.length <= MAX_DIFF_BYTES && !next.includes(0) && isValidUtf8(next) ? next.toString("utf8") : undefined;
  if (existingSize === undefined) {
    if (nextText === undefined) return `Create ${rel} (${formatBytes(next.length)} of binary or very large content).`;
    return unifiedDiff(rel, "", nextText, true);
  }
  const before = await textForDiff(absolute, existingSize);
  if (before === undefined || nextText === undefined) {
    return `Replace ${rel} (${formatBytes(existingSize)}) with ${formatBytes(next.length)} of new content (binary or too large to diff).`;
  }
  if (before === nextText) return `No change: ${rel} already has exactly this content.`;
  return unifiedDiff(rel, before, nextText);
}
