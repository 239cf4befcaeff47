import { ToolError } from "../../core/errors.js";

/** One line of a hunk: kept (" "), removed ("-") or added ("+"), without its marker. */
export interface PatchLine {
  op: " " | "-" | "+";
  text: string;
}

/** A run of changes within one file. */
export interface Hunk {
  /** How the patch introduced it ("@@ -10,6 +10,7 @@", "@@ def main():"), for messages. */
  header: string;
  /** The old side's first line (1-based) when the patch gives numbers; an insertion (no old lines) goes after line oldStart. */
  oldStart?: number;
  /** Codex's `@@ text`: the hunk lies after the first line that reads so. */
  anchor?: string;
  lines: PatchLine[];
  /** Codex's `*** End of File`: the old side ends where the file does. */
  atEnd: boolean;
  /** "\ No newline at end of file" followed the old side's last line. */
  oldNoNewline: boolean;
  /** "\ No newline at end of file" followed the new side's last line. */
  newNoNewline: boolean;
}

/** What the patch does to one file. */
export type FilePatch =
  | { kind: "add"; path: string; text: string }
  | { kind: "delete"; path: string; hunks: Hunk[] }
  | { kind: "update"; path: string; moveTo?: string; hunks: Hunk[]; modeChange?: boolean };

/** The two forms apply_patch reads. */
export type PatchFormat = "unified" | "envelope";

/** A parsed patch: its files in order, and which form it was written in. */
export interface ParsedPatch {
  format: PatchFormat;
  files: FilePatch[];
}

const bad = (line: number, why: string) => new ToolError("INVALID_ARGS", `Line ${line} of the patch: ${why} Nothing was changed.`);

/** Reads a patch in either form: Codex's `*** Begin Patch` envelope, or a unified diff (git's or diff -u's). */
export function parsePatch(patch: string): ParsedPatch {
  const lines = patch.replace(/\r\n/g, "\n").split("\n");
  const first = lines.findIndex((l) => l.trim() !== "");
  if (first === -1) throw new ToolError("INVALID_ARGS", "The patch is empty. Send a unified diff or a *** Begin Patch envelope.");
  const files = lines[first]!.trim() === "*** Begin Patch" ? parseEnvelope(lines, first) : parseUnified(lines);
  if (files.length === 0) {
    throw new ToolError(
      "INVALID_ARGS",
      "The patch names no file. Send a unified diff (--- a/path, +++ b/path, @@ hunks) or a *** Begin Patch envelope " +
        "(*** Add File: / *** Update File: / *** Delete File:).",
    );
  }
  const format: PatchFormat = lines[first]!.trim() === "*** Begin Patch" ? "envelope" : "unified";
  return { format, files };
}

const ENVELOPE_OP = /^\*\*\* (Add File|Delete File|Update File): (.+)$/;

function parseEnvelope(lines: string[], start: number): FilePatch[] {
  const files: FilePatch[] = [];
  let i = start + 1;
  let ended = false;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === "*** End Patch") {
      ended = true;
      break;
    }
    if (line.trim() === "") {
      i++;
      continue;
    }
    const op = ENVELOPE_OP.exec(line.trimEnd());
    if (!op) throw bad(i + 1, `expected *** Add File:, *** Update File:, *** Delete File: or *** End Patch, found ${quote(line)}.`);
    const path = op[2]!.trim();
    i++;
    if (op[1] === "Delete File") {
      files.push({ kind: "delete", path, hunks: [] });
      continue;
    }
    if (op[1] === "Add File") {
      const body: string[] = [];
      while (i < lines.length && lines[i]!.startsWith("+")) body.push(lines[i++]!.slice(1));
      if (i < lines.length && !lines[i]!.startsWith("***") && lines[i]!.trim() !== "") {
        throw bad(i + 1, `every line of an added file starts with "+"; found ${quote(lines[i]!)}.`);
      }
      files.push({ kind: "add", path, text: body.length ? `${body.join("\n")}\n` : "" });
      continue;
    }
    let moveTo: string | undefined;
    const move = /^\*\*\* Move to: (.+)$/.exec(lines[i]?.trimEnd() ?? "");
    if (move) {
      moveTo = move[1]!.trim();
      i++;
    }
    const hunks: Hunk[] = [];
    let hunk: Hunk | undefined;
    while (i < lines.length) {
      const l = lines[i]!;
      if (l.startsWith("*** ") && l.trim() !== "*** End of File") break;
      if (l.startsWith("@@")) {
        const anchor = l.slice(2).trim();
        hunk = { header: l.trimEnd(), lines: [], atEnd: false, oldNoNewline: false, newNoNewline: false, ...(anchor ? { anchor } : {}) };
        hunks.push(hunk);
      } else if (l.trim() === "*** End of File") {
        if (!hunk) throw bad(i + 1, "*** End of File comes before any change.");
        hunk.atEnd = true;
      } else {
        const op = l === "" ? " " : l[0];
        if (op !== " " && op !== "-" && op !== "+") {
          throw bad(i + 1, `a changed line starts with " " (kept), "-" (removed) or "+" (added); found ${quote(l)}.`);
        }
        if (!hunk) {
          // The first hunk of a file may come without its "@@" line.
          hunk = { header: "@@", lines: [], atEnd: false, oldNoNewline: false, newNoNewline: false };
          hunks.push(hunk);
        }
        hunk.lines.push({ op, text: l.slice(1) });
      }
      i++;
    }
    for (const h of hunks) trimTrailingBlankContext(h);
    const changing = hunks.filter((h) => h.lines.some((l) => l.op !== " "));
    if (!changing.length && !moveTo) throw bad(i, `*** Update File: ${path} changes nothing; give its hunks, or leave the file out.`);
    files.push({ kind: "update", path, hunks: changing, ...(moveTo !== undefined ? { moveTo } : {}) });
  }
  if (!ended) throw new ToolError("INVALID_ARGS", "The patch has no *** End Patch line; end the envelope with it. Nothing was changed.");
  return files;
}

/** A blank line the model left between hunks is not a kept empty line of the file. */
function trimTrailingBlankContext(h: Hunk): void {
  while (h.lines.length && h.lines.at(-1)!.op === " " && h.lines.at(-1)!.text === "") h.lines.pop();
}

const GIT_PREFIX = /^[abciow12]\//;
const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

interface UnifiedFile {
  oldName?: string;
  newName?: string;
  gitOld?: string;
  gitNew?: string;
  renameFrom?: string;
  renameTo?: string;
  created: boolean;
  deleted: boolean;
  modeChange: boolean;
  hunks: Hunk[];
  line: number;
}

function isFileStart(lines: string[], i: number): boolean {
  const l = lines[i]!;
  return l.startsWith("diff --git ") || (l.startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ "));
}

function parseUnified(lines: string[]): FilePatch[] {
  const files: FilePatch[] = [];
  let i = 0;
  while (i < lines.length) {
    // Whatever precedes a file's header (a commit message, `Index:` lines) is not part of it, as for git apply.
    if (!isFileStart(lines, i)) {
      if (lines[i]!.startsWith("@@ "))
        throw bad(i + 1, "a hunk comes before any file header; start each file with --- a/path and +++ b/path.");
      i++;
      continue;
    }
    const f: UnifiedFile = { created: false, deleted: false, modeChange: false, hunks: [], line: i + 1 };
    if (lines[i]!.startsWith("diff --git ")) {
      const names = gitHeaderNames(lines[i]!.slice("diff --git ".length));
      if (names) [f.gitOld, f.gitNew] = names;
      i++;
      for (; i < lines.length; i++) {
        const l = lines[i]!;
        if (l.startsWith("new file mode")) f.created = true;
        else if (l.startsWith("deleted file mode")) f.deleted = true;
        else if (l.startsWith("rename from ")) f.renameFrom = unquote(l.slice("rename from ".length));
        else if (l.startsWith("rename to ")) f.renameTo = unquote(l.slice("rename to ".length));
        else if (l.startsWith("old mode ") || l.startsWith("new mode ")) f.modeChange = true;
        else if (l.startsWith("copy from ") || l.startsWith("copy to "))
          throw bad(i + 1, "copies are not applied by apply_patch; use copy_file, then patch the copy.");
        else if (l.startsWith("GIT binary patch") || /^Binary files .* differ$/.test(l))
          throw bad(i + 1, "binary changes cannot be applied as a patch; write binary files with write_file (encoding base64).");
        else if (/^(index |similarity index |dissimilarity index )/.test(l)) continue;
        else break;
      }
    }
    if ((lines[i] ?? "").startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ ")) {
      f.oldName = headerName(lines[i]!.slice(4));
      f.newName = headerName(lines[i + 1]!.slice(4));
      i += 2;
    }
    while (i < lines.length && lines[i]!.startsWith("@@")) i = readHunk(lines, i, f.hunks);
    files.push(toFilePatch(f));
  }
  return files;
}

/** Reads one hunk from `lines[at]` (its header) into `out`; returns the index after it. */
function readHunk(lines: string[], at: number, out: Hunk[]): number {
  const header = lines[at]!;
  const m = HUNK_HEADER.exec(header);
  const hunk: Hunk = { header: header.trimEnd(), lines: [], atEnd: false, oldNoNewline: false, newNoNewline: false };
  // Counts guide the reading, but a model's counts are often off by a line or two: a body that
  // runs on past them, or stops short at the next header, is read as it is written.
  let oldLeft = Infinity;
  let newLeft = Infinity;
  if (m) {
    oldLeft = m[2] === undefined ? 1 : Number(m[2]);
    newLeft = m[4] === undefined ? 1 : Number(m[4]);
    hunk.oldStart = Number(m[1]);
    if (oldLeft === 0) hunk.oldStart += 1;
  } else if (header.trim() !== "@@" && !/^@@ .*@@/.test(header)) {
    throw bad(at + 1, `a hunk header reads "@@ -start,count +start,count @@"; found ${quote(header)}.`);
  }
  let i = at + 1;
  let last: "old" | "new" | "both" = "both";
  for (; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith("\\")) {
      if (last !== "new") hunk.oldNoNewline = true;
      if (last !== "old") hunk.newNoNewline = true;
      continue;
    }
    const within = oldLeft > 0 || newLeft > 0;
    // Within the counts, "--- x" then "+++ y" may be a removed "-- x" and an added "++ y"; it is
    // the next file only when a hunk follows it.
    const nextFile = l.startsWith("diff --git ") || (isFileStart(lines, i) && (!within || (lines[i + 2] ?? "").startsWith("@@")));
    if (l.startsWith("@@") || nextFile) break;
    if (l === "") {
      // An empty line inside the counted body is an empty kept line (some tools drop the space);
      // past the counts, or at the end of the patch, it only separates.
      if (!within || i === lines.length - 1) break;
      hunk.lines.push({ op: " ", text: "" });
      oldLeft--;
      newLeft--;
      last = "both";
      continue;
    }
    const op = l[0];
    if (op !== " " && op !== "-" && op !== "+") break;
    if (!within && (l === "-- " || l === "--")) break; // a mail signature after the last hunk
    hunk.lines.push({ op, text: l.slice(1) });
    if (op !== "+") oldLeft--;
    if (op !== "-") newLeft--;
    last = op === " " ? "both" : op === "-" ? "old" : "new";
  }
  trimTrailingBlankContext(hunk);
  if (!hunk.lines.length) throw bad(at + 1, `the hunk ${quote(header)} has no lines.`);
  out.push(hunk);
  return i;
}

function toFilePatch(f: UnifiedFile): FilePatch {
  // git strips its prefixes (a/ and b/, or the mnemonic i/ w/ c/ o/, reversed by -R) as -p1 does;
  // a plain diff -u's names are kept when they do not both carry one.
  const names = [f.oldName, f.newName].filter((n): n is string => n !== undefined && n !== "/dev/null");
  const strip = f.gitOld !== undefined || (names.length > 0 && names.every((n) => GIT_PREFIX.test(n)));
  const clean = (name: string | undefined) => (name === undefined || name === "/dev/null" || !strip ? name : name.replace(GIT_PREFIX, ""));
  const oldName = f.renameFrom ?? clean(f.oldName) ?? clean(f.gitOld);
  const newName = f.renameTo ?? clean(f.newName) ?? clean(f.gitNew);
  const where = `the file header on line ${f.line}`;
  if (f.created || oldName === "/dev/null") {
    if (!newName || newName === "/dev/null") throw bad(f.line, `${where} adds a file but names none.`);
    const removes = f.hunks.some((h) => h.lines.some((l) => l.op !== "+"));
    if (removes) throw bad(f.line, `"${newName}" is added (--- /dev/null), so its hunk may only hold "+" lines.`);
    const body = f.hunks.flatMap((h) => h.lines.map((l) => l.text));
    const noNewline = f.hunks.at(-1)?.newNoNewline ?? false;
    return { kind: "add", path: newName, text: body.length ? body.join("\n") + (noNewline ? "" : "\n") : "" };
  }
  if (!oldName) throw bad(f.line, `${where} names no file; give --- a/path and +++ b/path.`);
  if (f.deleted || newName === "/dev/null") return { kind: "delete", path: oldName, hunks: f.hunks };
  const moveTo = newName !== undefined && newName !== oldName ? newName : undefined;
  if (!f.hunks.length && moveTo === undefined && !f.modeChange) throw bad(f.line, `the diff for "${oldName}" has no hunks.`);
  return {
    kind: "update",
    path: oldName,
    hunks: f.hunks,
    ...(moveTo !== undefined ? { moveTo } : {}),
    ...(f.modeChange ? { modeChange: true } : {}),
  };
}

/** The names in `diff --git a/x b/x`: quoted, or split where the two halves name the same path. */
function gitHeaderNames(rest: string): [string, string] | undefined {
  const quoted = /^("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/.exec(rest);
  if (quoted && (rest.startsWith('"') || rest.endsWith('"'))) return [unquote(quoted[1]!), unquote(quoted[2]!)];
  // Unquoted names may hold spaces: "a/my file b/my file" splits where both halves agree.
  for (let at = rest.indexOf(" b/"); at !== -1; at = rest.indexOf(" b/", at + 1)) {
    const a = rest.slice(0, at);
    const b = rest.slice(at + 1);
    if (a.slice(2) === b.slice(2)) return [a, b];
  }
  return quoted ? [quoted[1]!, quoted[2]!] : undefined;
}

/** A ---/+++ header's name: the part before a tab (a timestamp may follow), unquoted. */
function headerName(rest: string): string {
  const name = rest.split("\t")[0]!.trimEnd();
  return unquote(name);
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", '"': '"', "\\": "\\", a: "\x07", b: "\b", f: "\f", r: "\r", v: "\v" };

/** git's C-style quoting of unusual names ("a/caf\303\251"). */
function unquote(name: string): string {
  if (!(name.length >= 2 && name.startsWith('"') && name.endsWith('"'))) return name;
  const bytes: number[] = [];
  const body = name.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const next = body[i + 1] ?? "";
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else {
      bytes.push(...Buffer.from(ESCAPES[next] ?? next, "utf8"));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

function quote(line: string): string {
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}…` : line);
}
