import { readdir } from "node:fs/promises";
import type { Stats } from "node:fs";
import path from "node:path";
import { ToolError } from "../../core/errors.js";
import type { Assessment, ToolContext } from "../../core/tool.js";
import { executionSensitiveWithin, secretWithin } from "../../workspace/protected.js";
import { writtenPath, type ResolvedPath, type Workspace } from "../../workspace/workspace.js";
import { formatCount } from "../../core/format-count.js";
import { pathBelow } from "../../workspace/path-below.js";
import { resolveArg } from "../resolve-arg.js";
import { statOrUndefined } from "../../workspace/stat.js";

/**
 * The path as written, relative to the root, without following symlinks; undefined when it
 * lies outside (then resolution fails anyway).
 */
export function lexicalRelative(ws: Workspace, input: string): string | undefined {
  if (input.includes("\0")) return undefined;
  let written: string;
  try {
    written = writtenPath(input, ws.root);
  } catch {
    return undefined;
  }
  const rel = pathBelow(ws.root, path.resolve(ws.root, written));
  return rel === undefined ? undefined : rel || ".";
}

/** A file tool's `describeCall`: the verb, then the paths its scope names ("Edit notes.txt"). */
export function describePaths(verb: string): (args: unknown, subjects: readonly string[]) => string {
  return (_args, subjects) => `${verb} ${subjects.join(", ")}`;
}

/** `describeCall` of a tool that takes a file from one path to another ("Move a.txt to b.txt"). */
export function describeFromTo(verb: string): (args: unknown, subjects: readonly string[]) => string {
  return (_args, subjects) => (subjects.length === 2 ? `${verb} ${subjects[0]} to ${subjects[1]}` : `${verb} ${subjects.join(", ")}`);
}

/**
 * What permission rules and the sensitive-file check see: the resolved (real) path of each
 * argument, and also the path as written when a symlink makes them differ, so a link named
 * `notes.txt` that points at `.env` is judged as `.env`, and a link named `.env` stays denied.
 */
export function pathSubjects(ctx: ToolContext, inputs: readonly string[], write = false): string[] {
  const out = new Set<string>();
  for (const input of inputs) {
    const resolved = resolveArg(ctx, input, write);
    out.add(ctx.workspace.display(resolved));
    const lexical = lexicalRelative(ctx.workspace, input);
    if (lexical !== undefined) out.add(lexical);
  }
  return [...out];
}

/**
 * Workspace-relative paths for the scheduler and the cache; best effort, never throws. `write`
 * resolves as the call will (sharing its resolution with the other hooks).
 */
export function accessPaths(ctx: ToolContext, inputs: readonly string[], write = false): string[] {
  const out: string[] = [];
  for (const input of inputs) {
    try {
      out.push(ctx.workspace.display(resolveArg(ctx, input, write)));
    } catch {
      const lexical = lexicalRelative(ctx.workspace, input);
      if (lexical !== undefined) out.push(lexical);
    }
  }
  return out;
}

export { lstatOrUndefined, statOrUndefined } from "../../workspace/stat.js";

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const here = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = here;
    }
  }
  return row[b.length]!;
}

/** Names in the same folder that look like what was asked for (a typo, another extension). */
async function similarNames(absolute: string): Promise<string[]> {
  const dir = path.dirname(absolute);
  const wanted = path.basename(absolute).toLowerCase();
  const stem = wanted.replace(/\.[^.]*$/, "");
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => {
      const lower = n.toLowerCase();
      return lower === wanted || lower.replace(/\.[^.]*$/, "") === stem || editDistance(lower, wanted) <= 2;
    })
    .slice(0, 3);
}

/** FILE_NOT_FOUND with the nearest names in the folder and what to do next. */
export async function notFound(ctx: ToolContext, resolved: ResolvedPath, what = "file"): Promise<ToolError> {
  const name = ctx.workspace.display(resolved);
  const similar = await similarNames(resolved.absolute);
  const parentRel = path.posix.dirname(name);
  const hint = similar.length
    ? ` Did you mean ${similar.map((s) => `"${parentRel === "." ? s : `${parentRel}/${s}`}"`).join(" or ")}?`
    : statOrUndefined(path.dirname(resolved.absolute))
      ? ` Use list_directory on "${parentRel}" to see what is there.`
      : ` Its folder "${parentRel}" does not exist either.`;
  return new ToolError("FILE_NOT_FOUND", `The ${what} "${name}" does not exist.${hint}`);
}

/** "1,234 bytes (1.2 KB)". */
export function formatBytes(n: number): string {
  const units = ["KB", "MB", "GB", "TB"];
  let value = n;
  let unit = "";
  for (const u of units) {
    if (value < 1024) break;
    value /= 1024;
    unit = u;
  }
  const plain = `${formatCount(n)} byte${n === 1 ? "" : "s"}`;
  return unit ? `${plain} (${value.toFixed(1)} ${unit})` : plain;
}

/**
 * Whether a path as written names a folder: it ends with "/", "/." or "/..". Resolution drops
 * what shows it ("notes/." resolves to "notes"), so a write must ask before resolving.
 */
export function namesFolder(written: string): boolean {
  return /[\\/]\.{0,2}$/.test(written);
}

/**
 * Refuses a file's destination that is a folder (written as one, or one already there): copy_file
 * and move_file take the full new name, and a model that meant "into the folder" is told which.
 */
export function assertFileDestination(written: string, destRel: string, destStat: Stats | undefined, source: string): void {
  if (!namesFolder(written) && !destStat?.isDirectory()) return;
  const example = path.posix.join(destRel, path.basename(source));
  throw new ToolError("INVALID_PATH", `"${written}" names a folder; give the full new name of the file, such as "${example}".`);
}

/** Refuses to treat the workspace root (or an extra root) as a file to replace or remove. */
export function assertNotRoot(resolved: ResolvedPath, verb: string): void {
  if (resolved.relative === ".") {
    throw new ToolError("INVALID_PATH", `Refusing to ${verb} the workspace root itself; name a file or folder inside it.`);
  }
}

/**
 * For a move or copy: why what it carries could make a program run, from where it is or from
 * where it lands (a folder holding `hooks/` that becomes `.git`, one holding `.git` that moves
 * into place), or undefined. Paths the call cannot resolve are left to the call to report.
 */
export async function carriesExecutionSensitive(ctx: ToolContext, from: string, to: string): Promise<Assessment | undefined> {
  try {
    const src = resolveArg(ctx, from);
    const dest = resolveArg(ctx, to, true);
    const why =
      (src.root === ctx.workspace.root ? await executionSensitiveWithin(src.absolute, src.relative) : undefined) ??
      (dest.root === ctx.workspace.root ? await executionSensitiveWithin(src.absolute, dest.relative) : undefined);
    return why ? { ask: why } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * For a move or a deletion of a folder: the first secret it holds, which makes the call a person's
 * to approve in every mode (`done`: "moves", "is deleted"), or undefined. A secret is never touched
 * unasked on its own; neither is it with its folder: deleted, it is the person's credential lost;
 * moved while a command's sandbox is being made, it is taken from under that sandbox's hiding
 * (sandbox/mounts.ts, pinArgs).
 */
export async function carriesSecret(ctx: ToolContext, folder: string, done: string): Promise<Assessment | undefined> {
  try {
    const src = resolveArg(ctx, folder);
    if (src.root !== ctx.workspace.root || src.relative === ".") return undefined;
    const secret = await secretWithin(src.absolute, src.relative);
    return secret ? { confirm: `${secret}, and a folder holding one ${done} only with a person's approval` } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Refuses to change a file the model has not seen as it now stands (see ToolContext.reads): it
 * changed on disk since the model read it, or was never read. A person who approved the call saw
 * the diff against what the file holds now (see {@link staleNote}), so their approval lets it run.
 * No-op without a guard.
 */
export function assertSeen(ctx: ToolContext, absolute: string, rel: string, change: string): void {
  if (ctx.approvedBy === "user") return;
  const why = ctx.reads?.staleness(absolute);
  if (why) {
    throw new ToolError(
      "STALE_FILE",
      `"${rel}" ${why}. Read it with read_file, then ${change} again from what it holds now. Nothing was changed.`,
    );
  }
}

/** For a preview: a line warning the person that the model has not seen the file as it stands, or "". */
export function staleNote(ctx: ToolContext, absolute: string, rel: string): string {
  const why = ctx.reads?.staleness(absolute);
  return why ? `Note: ${rel} ${why}; the model has not seen what it holds now, and the diff below is against that.\n` : "";
}
