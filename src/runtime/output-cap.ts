import { lstatSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { formatCount } from "../core/format-count.js";

/** Default cap on what one call sends the model, in characters. */
export const DEFAULT_MAX_OUTPUT_CHARS = 100_000;

/** Spill folders still on disk; one exit hook removes them all, however many runners there are. */
const liveDirs = new Set<string>();
let exitHooked = false;
function removeAtExit(dir: string): void {
  liveDirs.add(dir);
  if (exitHooked) return;
  exitHooked = true;
  process.once("exit", () => {
    for (const d of liveDirs) rmSync(d, { recursive: true, force: true });
  });
}

/**
 * Keeps the full text of outputs too long for the model, in a private temporary folder that
 * read tools may read, so the model can page through what was cut.
 */
export class OutputSpill {
  /**
   * Where the folder is (or will be): named at once, with a random part no one can guess, so the
   * workspace can name it as a read-only root; made only when an output is first cut, so a runner
   * that never cuts one leaves nothing behind, even when its process is killed.
   */
  readonly path: string;

  constructor(base?: string) {
    this.path = path.join(base ?? os.tmpdir(), `tackle-output-${randomBytes(9).toString("base64url")}`);
    removeAtExit(this.path);
  }

  /** The folder, made on first use. */
  get dir(): string {
    ensureOwnFolder(this.path);
    return this.path;
  }

  save(name: string, text: string): string {
    const file = path.join(this.dir, `${name.replace(/[^A-Za-z0-9_.-]/g, "_")}.txt`);
    writeFileSync(file, text, { mode: 0o600 });
    return file;
  }

  dispose(): void {
    rmSync(this.path, { recursive: true, force: true });
    liveDirs.delete(this.path);
  }
}

/**
 * Makes `dir` private (0700) unless it is already a folder of this user's; throws for anything
 * else there (a symlink, another user's folder): nothing is written through what someone planted.
 */
export function ensureOwnFolder(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.uid !== process.getuid?.()) throw new Error(`${dir} is not a folder of this user's.`);
  }
}

function countLines(text: string, end = text.length): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * Cuts `text` to at most about `max` characters, keeping the head and the tail and saying what
 * was cut and where the whole text is. Cuts fall on line boundaries where one is near.
 */
export function capOutput(
  text: string,
  max: number,
  save?: () => string | undefined,
): { text: string; truncated: boolean; fullPath?: string } {
  if (text.length <= max) return { text, truncated: false };
  const headBudget = Math.floor(max * 0.6);
  const tailBudget = Math.floor(max * 0.35);
  let headEnd = headBudget;
  const nl = text.lastIndexOf("\n", headBudget);
  if (nl > headBudget * 0.8) headEnd = nl + 1;
  let tailStart = text.length - tailBudget;
  const nl2 = text.indexOf("\n", tailStart);
  if (nl2 !== -1 && nl2 < tailStart + tailBudget * 0.2) tailStart = nl2 + 1;
  const fullPath = save?.();
  const totalLines = countLines(text);
  const firstCutLine = countLines(text, headEnd);
  const lastCutLine = countLines(text, tailStart) - 1;
  const omitted = tailStart - headEnd;
  const where = fullPath
    ? ` The full output (${formatCount(totalLines)} lines) is in ${fullPath}; ` +
      `read it with read_file (offset ${firstCutLine}, limit 200) or search it with grep.`
    : "";
  const notice = `\n[... ${formatCount(omitted)} characters cut (lines ${firstCutLine}–${lastCutLine}).${where} ...]\n`;
  return { text: text.slice(0, headEnd) + notice + text.slice(tailStart), truncated: true, ...(fullPath ? { fullPath } : {}) };
}

/**
 * An upper bound on the length of `JSON.stringify(value)` when that bound is at most `budget`,
 * else undefined (then only serialising tells). Every character of a string is counted as six,
 * its longest escape (`\u001f`), so the bound never falls short.
 */
export function jsonSizeBound(value: unknown, budget: number): number | undefined {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") total += v.length * 6 + 2;
    else if (v === null || typeof v !== "object") total += 24;
    else if (typeof (v as { toJSON?: unknown }).toJSON === "function") return undefined;
    else if (Array.isArray(v)) {
      total += 2 + v.length;
      for (const item of v) stack.push(item);
    } else {
      for (const key of Object.keys(v)) {
        total += key.length * 6 + 4;
        stack.push((v as Record<string, unknown>)[key]);
      }
      total += 2;
    }
    if (total > budget) return undefined;
  }
  return total;
}
