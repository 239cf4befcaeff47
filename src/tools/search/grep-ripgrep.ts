import { StringDecoder } from "node:string_decoder";
import { ToolError } from "../../core/errors.js";
import { MAX_FILE_BYTES } from "./grep-builtin.js";
import { MAX_LINE_CHARS, type GrepHit } from "./hits.js";
import { COMMON_RG_FLAGS, runRipgrep } from "./ripgrep.js";

export interface RipgrepGrepOptions {
  rg: string;
  /** Working directory: the workspace root; `target` is relative to it. */
  cwd: string;
  target: string;
  pattern: string;
  caseInsensitive: boolean;
  /** Extra flags: the file filter's --type-add, the secret-file globs. */
  extraArgs: readonly string[];
  signal: AbortSignal;
  /** Every hit of a file that is not binary; called once per file, after ripgrep finished it. */
  onHits: (hits: GrepHit[]) => void;
}

/** The pattern is valid JavaScript but ripgrep's Rust engine refused it: run the built-in engine instead. */
export class RipgrepRejectedPattern extends Error {}

type RgText = { text?: string; bytes?: string };
interface RgMatch {
  type: "match";
  data: { path: RgText; lines: RgText; line_number: number | null; submatches: Array<{ start: number }> };
}
interface RgEnd {
  type: "end";
  data: { path: RgText; binary_offset: number | null };
}

function textOf(t: RgText): string {
  return t.text ?? Buffer.from(t.bytes ?? "", "base64").toString("utf8");
}

function stripTerminator(s: string): string {
  let end = s.length;
  if (end > 0 && s.charCodeAt(end - 1) === 10) end--;
  if (end > 0 && s.charCodeAt(end - 1) === 13) end--;
  return end === s.length ? s : s.slice(0, end);
}

/**
 * Searches with ripgrep's JSON output. JSON (rather than `path:line:text`) is what tells a
 * binary file apart: ripgrep may print matches from before the NUL byte it later finds, and its
 * `end` message then carries `binary_offset`, so that file's hits are dropped — as the built-in
 * engine drops binary files whole. The pattern goes in one `--regexp=` argument and paths after
 * `--`, so nothing the model writes can be read as an option; no shell is involved.
 */
export async function grepRipgrep(o: RipgrepGrepOptions): Promise<void> {
  const args = [
    "--json",
    "--no-mmap",
    "--crlf",
    `--max-filesize=${MAX_FILE_BYTES}`,
    ...COMMON_RG_FLAGS,
    ...(o.caseInsensitive ? ["--ignore-case"] : ["--case-sensitive"]),
    ...o.extraArgs,
    `--regexp=${o.pattern}`,
    "--",
    o.target,
  ];
  let pending: GrepHit[] = [];
  let partial = "";
  // Chunks can split a multi-byte character; the decoder carries it over.
  const decoder = new StringDecoder("utf8");
  let parseError: unknown;
  const onLine = (line: string) => {
    // Only match and end messages matter; begin, context and summary are skipped unparsed.
    if (line.startsWith('{"type":"match"')) {
      const m = JSON.parse(line) as RgMatch;
      const text = stripTerminator(textOf(m.data.lines));
      const startByte = m.data.submatches[0]?.start ?? 0;
      // Byte offsets become UTF-16 indexes only where a long line needs a window around the match.
      const column = text.length > MAX_LINE_CHARS && startByte > 0 ? Buffer.from(text, "utf8").subarray(0, startByte).toString("utf8").length : startByte;
      let p = textOf(m.data.path);
      if (p.startsWith("./")) p = p.slice(2);
      pending.push({ path: p, line: m.data.line_number ?? 0, text, column });
    } else if (line.startsWith('{"type":"end"')) {
      const e = JSON.parse(line) as RgEnd;
      if (e.data.binary_offset === null && pending.length) o.onHits(pending);
      pending = [];
    }
  };
  const run = runRipgrep(o.rg, args, {
    cwd: o.cwd,
    signal: o.signal,
    onStdout: (chunk) => {
      if (parseError) return;
      const s = partial + decoder.write(chunk);
      let from = 0;
      try {
        for (let nl = s.indexOf("\n"); nl !== -1; nl = s.indexOf("\n", from)) {
          onLine(s.slice(from, nl));
          from = nl + 1;
        }
      } catch (err) {
        parseError = err;
        run.stop();
      }
      partial = s.slice(from);
    },
  });
  const { code, stderr } = await run.done;
  if (parseError) throw new ToolError("EXECUTION_ERROR", `Could not read ripgrep's output (${(parseError as Error).message}).`);
  if (code === 0 || code === 1) return;
  if (/regex parse error|error parsing regex|size limit|look-?around|backreferences/i.test(stderr)) {
    throw new RipgrepRejectedPattern(stderr.trim());
  }
  // Exit 2 after output: some files could not be read (permissions), which the built-in engine
  // skips silently too. Without any output it is a real failure.
  if (code === 2 && stderr.split("\n").every((l) => l === "" || /\(os error \d+\)$/.test(l))) return;
  throw new ToolError("EXECUTION_ERROR", `ripgrep failed: ${stderr.trim() || `exit code ${code}`}`);
}
