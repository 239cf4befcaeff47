import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import type { ToolExecutionResult } from "../../core/result.js";
import { TOOL } from "../names.js";
import { backendFromEnv, chooseBackend, type ChosenBackend, type SearchBackend } from "./backend.js";
import { eachFile } from "./file-list.js";
import { resolveSearchRoot, searchRootHooks, type SearchRoot } from "./search-root.js";
import { reportElapsed } from "../progress.js";
import { MatchedFiles, type Matches } from "./matched-files.js";
import { NEWEST_FIRST_UP_TO } from "./file-order.js";

export const DEFAULT_GLOB_RESULTS = 200;
export const MAX_GLOB_RESULTS = 5000;

export const GlobInput = z.object({
  pattern: z.string().min(1).describe('Glob matched against file paths relative to `path`: "**/*.ts", "src/**/test_*.py", "*.{json,yml}".'),
  path: z.string().optional().describe("Directory to search, relative to the workspace. Default: the whole workspace."),
  maxResults: z
    .number()
    .int()
    .min(1)
    .max(MAX_GLOB_RESULTS)
    .default(DEFAULT_GLOB_RESULTS)
    .describe(`Most paths to return (default ${DEFAULT_GLOB_RESULTS}, at most ${MAX_GLOB_RESULTS}).`),
  sort: z
    .enum(["modified", "path"])
    .optional()
    .describe(
      `"modified": most recently modified first; "path": by path. Default: modified, or path when more than ${NEWEST_FIRST_UP_TO} files match.`,
    ),
});
export type GlobArgs = z.output<typeof GlobInput>;

export interface GlobToolOptions {
  /** Engine that lists files: `auto` (ripgrep when installed), `ripgrep` or `builtin`. Absent: TACKLE_GREP_BACKEND, then auto. */
  backend?: SearchBackend;
}

/**
 * The pattern relative to the search directory: "./" dropped, an absolute pattern inside the
 * directory made relative, and anything that climbs out (`..`, other absolute paths) refused.
 */
function normalisePattern(pattern: string, root: SearchRoot): string {
  // Backslashes stay: in a glob they escape (`\*` is a literal star).
  let p = pattern.trim();
  if (path.isAbsolute(p)) {
    const prefix = root.absolute.endsWith("/") ? root.absolute : `${root.absolute}/`;
    if (!p.startsWith(prefix)) {
      throw new ToolError(
        "INVALID_PATH",
        `The pattern "${pattern}" is an absolute path outside the search directory; write it relative to "${root.display(root.relative)}".`,
      );
    }
    p = p.slice(prefix.length);
  }
  while (p.startsWith("./")) p = p.slice(2);
  if (p.split("/").includes("..")) {
    throw new ToolError(
      "INVALID_PATH",
      `The pattern "${pattern}" climbs out of the search directory with ".."; set \`path\` to the directory to search instead.`,
    );
  }
  if (p === "") throw new ToolError("INVALID_ARGS", `The pattern "${pattern}" is empty; use "**/*" for every file.`);
  return p;
}

/**
 * The deepest directory the pattern's literal prefix names (`src/lib` for `src/lib/**∕*.ts`),
 * so only it is walked. Only a real directory reached without symbolic links qualifies: the
 * walk never follows links, so narrowing through one would change the answer.
 */
function narrowedRoot(root: SearchRoot, pattern: string): SearchRoot {
  const scan = picomatch.scan(pattern);
  const base = scan.isGlob ? scan.base : path.posix.dirname(pattern);
  if (!base || base === ".") return root;
  const lexical = path.join(root.absolute, base);
  try {
    if (realpathSync.native(lexical) !== lexical || !statSync(lexical).isDirectory()) return root;
  } catch {
    return root;
  }
  return { ...root, absolute: lexical, relative: root.relative === "." ? base : `${root.relative}/${base}`, isFile: false };
}

/**
 * glob's engine. `auto` means the built-in walker here, unlike grep: listing names is cheap
 * work, and spawning `rg --files` and reading its list back cost more than walking in-process
 * (bench/search.bench.ts: built-in 0.65–0.93x fast-glob's time, ripgrep 1.3–4x). ripgrep is
 * used when asked for explicitly, by option or TACKLE_GREP_BACKEND.
 */
function globBackend(preferred: SearchBackend | undefined): ChosenBackend {
  const wanted = preferred && preferred !== "auto" ? preferred : backendFromEnv();
  return wanted === "ripgrep" ? chooseBackend("ripgrep") : { kind: "builtin" };
}

/** Creates the glob tool (spec 001; spec 002's `search_files`): files by pattern, newest first or by path. */
export function createGlobTool(options: GlobToolOptions = {}) {
  return defineTool({
    name: TOOL.glob,
    title: "Find files by pattern",
    description: loadDescription(import.meta.url, "glob.txt"),
    input: GlobInput,
    effect: "read",
    ...searchRootHooks,
    timeoutMs: () => 120_000,
    async execute(args, ctx): Promise<ToolExecutionResult> {
      const root = resolveSearchRoot(ctx, args.path);
      if (root.isFile) {
        throw new ToolError("INVALID_ARGS", `"${args.path}" is a file; glob's path must be a directory (use read_file to read a file).`);
      }
      const pattern = normalisePattern(args.pattern, root);
      const filter = { pattern, cut: root.relative === "." ? 0 : root.relative.length + 1 };
      let files: MatchedFiles;
      try {
        files = new MatchedFiles(root.root, filter, args.maxResults, ctx.signal, args.sort);
      } catch (err) {
        throw new ToolError("INVALID_ARGS", `The glob "${args.pattern}" is not valid (${(err as Error).message}).`);
      }
      const walkRoot = narrowedRoot(root, pattern);
      const backend = globBackend(options.backend);
      const stopProgress = reportElapsed(ctx, "listing files");
      let found: Matches;
      try {
        if (backend.kind === "builtin") files.walk(walkRoot.absolute);
        else await eachFile(walkRoot, backend, ctx.signal, (f) => files.add(f));
        found = await files.done();
      } finally {
        files.close();
        stopProgress();
      }
      const shown = found.first;
      const where = root.display(root.relative);
      const structured = {
        files: shown.map((f) => root.display(f)),
        total: found.total,
        truncated: found.total > shown.length,
        order: found.order,
      };
      if (shown.length === 0) {
        const hint =
          !pattern.includes("/") && !pattern.includes("**")
            ? ` The pattern is matched against whole paths relative to ${where}, so "${pattern}" ` +
              `only finds files directly in it; use "**/${pattern}" to look in every folder.`
            : "";
        return { content: `No files match "${args.pattern}" in ${where}.${hint}`, structured, metadata: { total: 0 } };
      }
      const lines = [...structured.files];
      if (structured.truncated) {
        const which = found.order === "modified" ? `the ${shown.length} most recently modified` : `the first ${shown.length} in path order`;
        const why =
          found.order === "path" && !args.sort
            ? ` They are not newest first because over ${NEWEST_FIRST_UP_TO} match; sort: "modified" orders them by time.`
            : "";
        lines.push(
          "",
          `[Showing ${which} of ${found.total} matching files. Use a more specific pattern or path` +
            (args.maxResults < MAX_GLOB_RESULTS ? `, or raise maxResults (up to ${MAX_GLOB_RESULTS}).` : ".") +
            `${why}]`,
        );
      }
      return { content: lines.join("\n"), structured, metadata: { total: found.total, truncated: structured.truncated } };
    },
  });
}
