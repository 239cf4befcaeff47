import { createTwoFilesPatch } from "diff";
import { readFile } from "node:fs/promises";
import { isValidUtf8 } from "./binary.js";
import { READ_NOFOLLOW } from "../../workspace/no-follow.js";
import { formatBytes } from "./common.js";

/** Longest preview shown to the person approving; the rest is summarised. */
const MAX_PREVIEW_CHARS = 20_000;
/** Files larger than this are summarised rather than diffed. */
const MAX_DIFF_BYTES = 2 * 1024 * 1024;

/** A unified diff between two texts, labelled with the file's workspace path. */
export function unifiedDiff(rel: string, before: string, after: string, created = false): string {
  const patch = createTwoFilesPatch(created ? "/dev/null" : `a/${rel}`, `b/${rel}`, before, after, undefined, undefined, { context: 3 });
  // The "Index:" and "====" banner lines the library adds carry nothing a reviewer needs.
  const body = patch.replace(/^Index: .*\n=+\n/, "");
  if (body.length <= MAX_PREVIEW_CHARS) return body;
  return `${body.slice(0, MAX_PREVIEW_CHARS)}\n... (${(body.length - MAX_PREVIEW_CHARS).toLocaleString("en-US")} more characters of diff not shown)\n`;
}

/**
 * The text of an existing file for a diff, or undefined when it is missing, binary or too
 * large to diff (then a summary is shown instead).
 */
export async function textForDiff(absolute: string, size: number): Promise<string | undefined> {
  if (size > MAX_DIFF_BYTES) return undefined;
  let bytes: Buffer;
  try {
    bytes = await readFile(absolute, { flag: READ_NOFOLLOW });
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
