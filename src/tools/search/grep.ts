import path from "node:path";
import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import type { ToolExecutionResult } from "../../core/result.js";
import { TOOL } from "../names.js";
import { chooseBackend, type SearchBackend } from "./backend.js";
import { compileFileFilter } from "./file-filter.js";
import { isSensitivePath } from "../../workspace/sensitive.js";
import { listFiles } from "./file-list.js";
import { grepBuiltin } from "./grep-builtin.js";
import { grepOffThread } from "./grep-offthread.js";
import { grepRipgrep, RipgrepRejectedPattern } from "./grep-ripgrep.js";
import { displayLine, HitCollector, type GrepHit } from "./hits.js";
import { verifiedHits } from "./verified-hits.js";
import { compilePattern } from "./regex.js";
import { reportElapsed } from "../progress.js";
import { resolveSearchRoot, searchRootHooks, type SearchRoot } from "./search-root.js";
import { formatCount } from "../../core/format-count.js";

export const DEFAULT_GREP_RESULTS = 200;
export const MAX_GREP_RESULTS = 5000;

export const GrepInput = z.object({
  pattern: z.string().min(1).describe("Regular expression matched against each line (ripgrep / Rust regex syntax)."),
  path: z.string().optional().describe("File or directory to search, relative to the workspace. Default: the whole workspace."),
  glob: z
    .string()
    .optional()
    .describe('Only search files matching this glob: "*.ts", "*.{ts,tsx}", "src/**/*.py". A leading "!" excludes instead.'),
  caseInsensitive: z.boolean().default(false).describe("Ignore case. Default false."),
  maxResults: z
    .number()
    .int()
    .min(1)
    .max(MAX_GREP_RESULTS)
    .default(DEFAULT_GREP_RESULTS)
    .describe(`Most matching lines to return (default ${DEFAULT_GREP_RESULTS}, at most ${MAX_GREP_RESULTS}).`),
});
export type GrepArgs = z.output<typeof GrepInput>;

export interface GrepToolOptions {
  /** Engine: `auto` (ripgrep when installed, the default), `ripgrep` or `builtin`. Absent: TACKLE_GREP_BACKEND, then auto. */
  backend?: SearchBackend;
  /** Search files that may hold secrets (.env, keys) too. Default false: they are skipped. */
  includeSensitive?: boolean;
  /**
   * Run the built-in engine on the calling thread instead of a worker thread. Saves the worker's
   * start-up, but a pathological regex then cannot be cancelled. Default false.
   */
  inProcess?: boolean;
}

/** Where a hit's path (relative to the root directory) sits relative to the search root. */
function relativeToSearch(root: SearchRoot, rel: string): string {
  if (root.isFile) return path.posix.basename(rel);
  if (root.relative === ".") return rel;
  return rel.slice(root.relative.length + 1);
}

/** Creates the grep tool: regex search over file contents, `file:line: text` lines. */
export function createGrepTool(options: GrepToolOptions = {}) {
  return defineTool({
    name: TOOL.grep,
    title: "Search file contents",
    description: loadDescription(import.meta.url, "grep.txt"),
    input: GrepInput,
    effect: "read",
    ...searchRootHooks,
    timeoutMs: () => 120_000,
    async execute(args, ctx): Promise<ToolExecutionResult> {
      const root = resolveSearchRoot(ctx, args.path);
      const pattern = compilePattern(args.pattern, args.caseInsensitive);
      const filter = compileFileFilter(args.glob);
      const backend = chooseBackend(options.backend === "auto" ? undefined : options.backend);
      // A secret file named as the search root got past the policy (a rule allowed it); files
      // that merely lie under the root did not, so they are skipped.
      const skipSensitive = !options.includeSensitive && !isSensitivePath(root.relative);
      const keep = (rel: string) => (!skipSensitive || !isSensitivePath(rel)) && (!filter || filter.matches(relativeToSearch(root, rel)));

      let hits = new HitCollector(args.maxResults);
      const stopProgress = reportElapsed(ctx, "searching", () => `${formatCount(hits.total)} matches so far`);
      try {
        return await search();
      } finally {
        stopProgress();
      }

      async function search(): Promise<ToolExecutionResult> {
        let engine: "ripgrep" | "builtin" = "builtin";
        if (backend.kind === "ripgrep" && !pattern.jsOnly) {
          engine = "ripgrep";
          try {
            await grepRipgrep({
              rg: backend.rg,
              cwd: root.root,
              target: root.relative,
              pattern: args.pattern,
              caseInsensitive: args.caseInsensitive,
              // Secret files are dropped below, by the same test the built-in engine applies before
              // reading (excluding them with --iglob cost every search ~10%).
              extraArgs: filter?.rgArgs ?? [],
              signal: ctx.signal,
              // One file's hits at a time: the file is judged once, not per line.
              onHits: (fileHits) => {
                if (keep(fileHits[0]!.path)) for (const h of fileHits) hits.add(h);
              },
            });
          } catch (err) {
            if (!(err instanceof RipgrepRejectedPattern)) throw err;
            // Valid JavaScript the Rust engine refuses (a construct it lacks): same search, built-in engine.
            ctx.log.debug("ripgrep refused the pattern; using the built-in engine", { pattern: args.pattern, reason: err.message });
            hits = new HitCollector(args.maxResults);
            engine = "builtin";
          }
        }
        if (engine === "builtin") {
          const files = (root.isFile ? [root.relative] : await listFiles(root, { kind: "builtin" }, ctx.signal)).filter(keep);
          const input = { cwd: root.root, files, pattern: args.pattern, caseInsensitive: args.caseInsensitive, limit: args.maxResults };
          const done = options.inProcess ? undefined : await grepOffThread(input, ctx.signal);
          if (done) hits = HitCollector.from(args.maxResults, done);
          else await grepBuiltin(root.root, files, pattern, ctx.signal, (h) => hits.add(h));
        }
        // What ripgrep printed is checked against the files as tackle reads them (see verified-hits.ts).
        const shown = hits.result();
        const checked = engine === "ripgrep" ? verifiedHits(root.root, shown) : { kept: shown, dropped: 0 };
        return formatGrep(args, root, hits, engine, checked);
      }
    },
  });
}

function formatGrep(
  args: GrepArgs,
  root: SearchRoot,
  hits: HitCollector,
  engine: string,
  checked: { kept: GrepHit[]; dropped: number },
): ToolExecutionResult {
  const shown = checked.kept;
  const dropped = checked.dropped
    ? `[${formatCount(checked.dropped)} matching lines were left out: their files changed while they were searched ` +
      "(a folder on the way became a link). Search again once nothing is changing them.]"
    : undefined;
  const where = root.display(root.relative);
  const structured = {
    matches: shown.map((h) => ({ path: root.display(h.path), line: h.line, text: h.text })),
    totalMatches: hits.total,
    files: hits.fileCount,
    truncated: hits.total > shown.length,
  };
  if (shown.length === 0) {
    const filter = args.glob ? ` among files matching "${args.glob}"` : "";
    const hint = args.caseInsensitive ? "" : " The search is case-sensitive; set caseInsensitive to true to ignore case.";
    return {
      content: `No matches for ${JSON.stringify(args.pattern)} in ${where}${filter}.${dropped ? ` ${dropped}` : hint}`,
      structured,
      metadata: { engine, totalMatches: 0 },
    };
  }
  const lines = shown.map((h) => `${root.display(h.path)}:${h.line}: ${displayLine(h)}`);
  if (dropped) lines.push("", dropped);
  if (hits.total > shown.length) {
    lines.push(
      "",
      `[Showing the first ${shown.length} of ${hits.total} matching lines in ${hits.fileCount} files, ordered by path. ` +
        `Narrow the search with a more specific pattern, a path to a folder or file, or a glob such as "*.ts"` +
        (args.maxResults < MAX_GREP_RESULTS ? `; or raise maxResults (up to ${MAX_GREP_RESULTS}).]` : ".]"),
    );
  }
  return {
    content: lines.join("\n"),
    structured,
    metadata: { engine, totalMatches: hits.total, files: hits.fileCount, truncated: structured.truncated },
  };
}
