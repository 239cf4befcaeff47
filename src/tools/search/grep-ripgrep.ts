import { StringDecoder } from "node:string_decoder";
import { ToolError } from "../../core/errors.js";
import { MAX_LINE_CHARS, type GrepHit } from "./hits.js";
import { COMMON_RG_FLAGS, runRipgrep } from "./ripgrep.js";

export interface RipgrepGrepOptions {
  rg: string;
  /** Working directory: the workspace root; `target` is relative to it. */
  cwd: string;
  target: string;
  pattern: string;
  caseInsensitive: boolean;
  /** Extra flags (the file filter's --type-add). */
  extraArgs: readonly string[];
  signal: AbortSignal;
  /** Every hit of a file that is not binary; called once per file, after ripgrep finished it. */
  onHits: (hits: GrepHit[]) => void;
}

/** The pattern is valid JavaScript but ripgrep's Rust engine refused it: run the built-in engine instead. */
export class RipgrepRejectedPattern extends Error {}

/**
 * ripgrep's notice that a file is binary: after a NUL byte found once some lines were printed
 * (directory walks) or instead of lines (files given by name). Such a file's lines are dropped,
 * as the built-in engine drops binary files whole.
 */
const BINARY_NOTICE = /^(.*): (?:WARNING: stopped searching binary file|binary file matches)/s;

/**
 * One line of `path\0line:column:text` output. Only the path and line number are read at once;
 * the text is cut out when the hit is shown, since a broad pattern can match tens of thousands
 * of lines of which a few hundred are printed.
 */
class RipgrepHit implements GrepHit {
  readonly path: string;
  readonly line: number;
  readonly #raw: string;
  /** Where `column:text` starts in the raw line. */
  readonly #rest: number;
  #parsed?: { text: string; column: number };

  constructor(path: string, raw: string, afterPath: number) {
    this.path = path;
    this.#raw = raw;
    const colon = raw.indexOf(":", afterPath);
    this.line = Number.parseInt(raw.slice(afterPath, colon), 10);
    this.#rest = colon + 1;
  }

  #parse(): { text: string; column: number } {
    if (this.#parsed) return this.#parsed;
    const colon = this.#raw.indexOf(":", this.#rest);
    const startByte = Number.parseInt(this.#raw.slice(this.#rest, colon), 10) - 1;
    let text = this.#raw.slice(colon + 1);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    // Byte columns become UTF-16 indexes only where a long line needs a window around the match.
    const column =
      text.length > MAX_LINE_CHARS && startByte > 0
        ? Buffer.from(text, "utf8").subarray(0, startByte).toString("utf8").length
        : Math.max(0, startByte);
    return (this.#parsed = { text, column });
  }

  get text(): string {
    return this.#parse().text;
  }

  get column(): number {
    return this.#parse().column;
  }
}

function dropDotSlash(p: string): string {
  return p.startsWith("./") ? p.slice(2) : p;
}

/**
 * Searches with ripgrep, reading `path NUL line:column:text` lines (compact, and quick to cut
 * up). The pattern goes in one `--regexp=` argument and paths after `--`, so nothing the model
 * writes can be read as an option; no shell is involved. A file's lines arrive together (ripgrep
 * buffers per file), followed by a notice if the file turned out to be binary.
 */
export async function grepRipgrep(o: RipgrepGrepOptions): Promise<void> {
  const args = [
    "--null",
    "--with-filename",
    "--line-number",
    "--column",
    "--no-heading",
    "--color=never",
    // Binary detection must see the whole file; with memory maps it only looks at the start.
    "--no-mmap",
    "--crlf",
    ...COMMON_RG_FLAGS,
    o.caseInsensitive ? "--ignore-case" : "--case-sensitive",
    ...o.extraArgs,
    `--regexp=${o.pattern}`,
    "--",
    o.target,
  ];
  let pending: GrepHit[] = [];
  let current: string | undefined;
  const flush = () => {
    if (pending.length) o.onHits(pending);
    pending = [];
  };
  const onLine = (line: string) => {
    const nul = line.indexOf("\0");
    if (nul === -1) {
      const notice = BINARY_NOTICE.exec(line);
      if (notice && dropDotSlash(notice[1]!) === current) pending = [];
      return;
    }
    const p = dropDotSlash(line.slice(0, nul));
    if (p !== current) {
      flush();
      current = p;
    }
    pending.push(new RipgrepHit(p, line, nul + 1));
  };
  let partial = "";
  // Chunks can split a multi-byte character; the decoder carries it over.
  const decoder = new StringDecoder("utf8");
  const run = runRipgrep(o.rg, args, {
    cwd: o.cwd,
    signal: o.signal,
    onStdout: (chunk) => {
      const s = partial + decoder.write(chunk);
      let from = 0;
      for (let nl = s.indexOf("\n"); nl !== -1; nl = s.indexOf("\n", from)) {
        onLine(s.slice(from, nl));
        from = nl + 1;
      }
      partial = s.slice(from);
    },
  });
  const { code, stderr } = await run.done;
  if (partial) onLine(partial);
  flush();
  if (code === 0 || code === 1) return;
  if (/regex parse error|error parsing regex|size limit|look-?around|backreferences/i.test(stderr)) {
    throw new RipgrepRejectedPattern(stderr.trim());
  }
  // Exit 2 after per-file errors (permission denied, vanished files): those files are skipped,
  // as the built-in engine skips them. Anything else is a real failure.
  if (code === 2 && stderr.split("\n").every((l) => l === "" || /\(os error \d+\)$/.test(l))) return;
  throw new ToolError("EXECUTION_ERROR", `ripgrep failed: ${stderr.trim() || `exit code ${code}`}`);
}
