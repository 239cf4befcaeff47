import os from "node:os";
import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import type { ToolExecutionResult } from "../../core/result.js";
import type { ChangeAnswer, ToolContext } from "../../core/tool.js";
import { runSandboxed, sandboxAvailable, sandboxUnavailableError, type SandboxRunResult } from "../../sandbox/sandbox.js";
import { DEFAULT_SANDBOX_LIMITS, type SandboxSettings } from "../../sandbox/config.js";
import { MAX_SENSITIVE_ENTRIES, sensitiveEntries } from "../../workspace/sensitive-entries.js";
import { TOOL } from "../names.js";
import { reportRunning } from "../progress.js";
import { createOverlay, overlaySupport, type Overlay } from "../../sandbox/overlay.js";
import { neverWritten } from "../../runtime/change-approval.js";
import { tackleFolders } from "../../workspace/own-folders.js";
import { Workspace } from "../../workspace/workspace.js";
import { missingInterpreterMessage, resolveInterpreter, type Language } from "./interpreters.js";
import { applyChanges, collectChanges, previewChanges, summariseChanges, type WorkspaceChange } from "./workspace-changes.js";

/** How run_code is set up: the validated `sandbox` section of the configuration, and overrides for tests. */
export interface RunCodeOptions {
  sandbox?: Partial<SandboxSettings>;
  /** Bytes of stdout and of stderr kept in memory (head and tail). Default 256 KiB each. */
  maxOutputBytes?: number;
}

const DEFAULT_TIMEOUT_S = 60;
const MAX_TIMEOUT_S = 3600;
const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024;
/** Where the program file appears inside the sandbox (made from memory, read-only). */
const CODE_DIR_IN_SANDBOX = "/run/tackle";

const noNul = (s: string) => !s.includes("\0");

const Input = z.object({
  language: z.enum(["python", "bash"]).describe('The language of `code`: "python" (Python 3) or "bash".'),
  code: z.string().min(1, "code is empty").max(1_000_000).refine(noNul, "code contains a null byte").describe("The program to run."),
  args: z
    .array(z.string().max(100_000).refine(noNul, "an argument contains a null byte"))
    .max(1000)
    .default([])
    .describe("Command-line arguments passed to the program."),
  env: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "environment variable names are letters, digits and _"),
      z.string().max(100_000).refine(noNul, "an environment value contains a null byte"),
    )
    .default({})
    .describe("Environment variables added to the program's minimal environment."),
  timeout: z
    .number()
    .positive()
    .max(MAX_TIMEOUT_S)
    .default(DEFAULT_TIMEOUT_S)
    .describe(
      `Time limit in SECONDS (default ${DEFAULT_TIMEOUT_S}, at most ${MAX_TIMEOUT_S}); the program and everything it started is killed after it.`,
    ),
});

const Output = z.object({
  stdout: z.string(),
  stderr: z.string(),
  exitCode: z.number().int().describe("The program's exit code; 128+N when signal N killed it; -1 when it was killed for the time limit."),
  duration: z.number().describe("Milliseconds."),
  timedOut: z.boolean().optional(),
  limit: z.enum(["cpu", "fileSize", "processes"]).optional(),
  truncated: z.boolean().optional(),
});

/**
 * run_code: Python or bash in the bubblewrap sandbox.
 *
 * Approval: the effect is `execute` (MCP clients see an open-world, non-read-only tool), but in
 * `safe` mode running needs no approval while the sandbox contains it: no network, limits on
 * everything (spec 003 says "Approval: Auto"). The code works on a copy-on-write view of the
 * workspace, so running it changes nothing; what it changed is then judged as writes of those
 * paths and applied only when approved (at once in mode `all`, except files that are code), and
 * setuid bits, devices and FIFOs never leave the sandbox. Where no such view can be made, the
 * workspace is read-only to the code. When the configuration gives the sandbox network access,
 * code could send the workspace anywhere, so each call asks. When the sandbox is unavailable no
 * approval is asked: the call refuses without running anything.
 */
export function createRunCodeTool(options: RunCodeOptions = {}) {
  const settings = options.sandbox ?? {};
  const bwrap = settings.bwrap === undefined ? {} : { bwrap: settings.bwrap };
  const network = settings.network ?? false;
  const limits = { ...DEFAULT_SANDBOX_LIMITS, ...settings.limits };
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;

  return defineTool({
    name: TOOL.runCode,
    title: "Run code (sandboxed)",
    description: `${loadDescription(import.meta.url, "run-code.txt")}\n\n${describeLimits(limits, network)}`,
    input: Input,
    output: Output,
    effect: "execute",
    needsApproval: async () => network && (await sandboxAvailable(bwrap)).available,
    // The tool stops the program itself at `timeout` and returns the partial output; the runner's
    // limit is a backstop a little later.
    timeoutMs: (args) => Math.ceil(args.timeout * 1000) + 10_000,
    async execute(args, ctx) {
      const status = await sandboxAvailable(bwrap);
      if (!status.available) throw sandboxUnavailableError(status, "run_code");
      const language = args.language as Language;
      const interpreter = await resolveInterpreter(language, language === "python" ? settings.python : undefined);
      if (!interpreter) throw new ToolError("UNAVAILABLE", missingInterpreterMessage(language), { recoverable: false });

      const root = ctx.workspace.root;
      const inSandbox = `${CODE_DIR_IN_SANDBOX}/${language === "python" ? "main.py" : "main.sh"}`;
      const env: Record<string, string> =
        language === "python" ? { PYTHONUNBUFFERED: "1", PYTHONDONTWRITEBYTECODE: "1", PYTHONPATH: root, ...args.env } : { ...args.env };
      let cow = await overlaySupport();
      // Written to a copy the person then sees as a diff; where none can be made, not written at all.
      let overlay = cow === true ? await createOverlay() : undefined;
      if (overlay && Workspace.isInside(root, overlay.dir)) {
        // A workspace that holds the temporary folder (TMPDIR inside it) cannot be layered over.
        overlay.dispose();
        overlay = undefined;
        cow = `the temporary folder (${os.tmpdir()}) is inside the workspace`;
      }
      const progress = reportRunning(ctx);
      try {
        let run: SandboxRunResult;
        try {
          run = await runSandboxed([interpreter.path, inSandbox, ...args.args], {
            workspace: root,
            // Code in a string cannot be judged file by file: the files that may hold secrets are not there for it.
            hidden: await hiddenFrom(root),
            network,
            env,
            limits,
            readOnly: [...interpreter.binds, ...(settings.readOnlyPaths ?? [])],
            ...(overlay ? { overlay } : { workspaceReadOnly: true }),
            // The program reaches the sandbox through a pipe: never a shell string, never a host file.
            files: [{ target: inSandbox, content: args.code }],
            ...bwrap,
            timeoutMs: Math.ceil(args.timeout * 1000),
            signal: ctx.signal,
            onOutput: (chunk) => {
              progress.printed(chunk.length);
              ctx.onOutput(chunk);
            },
            maxOutputBytes,
          });
        } catch (err) {
          if (err instanceof ToolError) throw err;
          throw new ToolError("EXECUTION_ERROR", `The sandbox could not start: ${(err as Error).message}`);
        } finally {
          progress.stop();
        }
        if (run.cancelled) {
          throw new ToolError(
            "CANCELLED",
            "run_code was cancelled; the program and every process it started were killed, and nothing it changed was applied.",
          );
        }
        const settled = overlay ? await settleChanges(overlay, root, ctx) : { readOnly: cow as string };
        return present(run, args.timeout, limits, network, settled);
      } finally {
        overlay?.dispose();
      }
    },
  });
}

/** What became of the code's changes to its copy of the workspace. */
interface Settled {
  /** Applied to the workspace. */
  applied: WorkspaceChange[];
  /** Not applied, and why, with the person's message if any. */
  held?: { changes: WorkspaceChange[]; reason: string; message?: string };
  refused: Array<{ path: string; why: string }>;
  ignored: Array<{ path: string; why: string }>;
  tooMany?: number;
}

/**
 * Judges and applies what the code changed: through the runner's approval when there is one
 * (a direct `execute` has no policy, as for every tool), and never a path no tool may write.
 */
async function settleChanges(overlay: Overlay, root: string, ctx: ToolContext): Promise<Settled> {
  const set = await collectChanges(overlay, root);
  const base = { ignored: set.ignored, ...(set.tooMany ? { tooMany: set.tooMany } : {}) };
  if (set.changes.length === 0) return { applied: [], refused: [], ...base };
  const byPath = new Map(set.changes.map((c) => [c.path, c]));
  const only = (paths: readonly string[]) => set.changes.filter((c) => paths.includes(c.path));
  const answer = ctx.confirmChanges
    ? await ctx.confirmChanges({
        paths: [...byPath.keys()],
        preview: (paths) => previewChanges(overlay, root, { changes: only(paths), ignored: set.ignored }),
      })
    : direct(root, set.changes);
  const refusedPaths = new Set(answer.refused.map((r) => r.path));
  // A refused folder takes what was made inside it along: nothing lands under a path that may not be written.
  const kept = set.changes.filter((c) => ![...refusedPaths].some((r) => c.path === r || c.path.startsWith(`${r}/`)));
  if (!answer.approved || kept.length === 0) {
    return {
      applied: [],
      held: { changes: kept, reason: answer.reason, ...(answer.message ? { message: answer.message } : {}) },
      refused: answer.refused,
      ...base,
    };
  }
  await applyChanges(overlay, root, kept);
  return { applied: kept, refused: answer.refused, ...base };
}

function direct(root: string, changes: readonly WorkspaceChange[]): ChangeAnswer {
  const refused = changes.flatMap((c) => {
    const why = neverWritten(root, c.path);
    return why ? [{ path: c.path, why }] : [];
  });
  return { approved: true, refused, reason: "called directly, outside a runner" };
}

/** The workspace's files that may hold secrets, to hide from the code; too many to hide is refused. */
async function hiddenFrom(root: string): Promise<string[]> {
  // tackle's own folders too, when the workspace holds them (a workspace at the home folder).
  const entries = [
    ...(await sensitiveEntries(root, { packages: true })),
    ...tackleFolders().filter((dir) => dir !== root && Workspace.isInside(root, dir)),
  ];
  if (entries.length > MAX_SENSITIVE_ENTRIES) {
    throw new ToolError(
      "UNAVAILABLE",
      `The workspace holds ${entries.length} files that may hold secrets, more than the ${MAX_SENSITIVE_ENTRIES} ` +
        "run_code can hide from the code; move them out of the workspace.",
      { recoverable: false },
    );
  }
  return entries;
}

function present(
  run: SandboxRunResult,
  timeoutS: number,
  limits: typeof DEFAULT_SANDBOX_LIMITS,
  network: boolean,
  settled: Settled | { readOnly: string },
): ToolExecutionResult {
  const duration = Math.round(run.durationMs);
  const truncated = run.droppedBytes.stdout > 0 || run.droppedBytes.stderr > 0;
  const structured = {
    stdout: run.stdout,
    stderr: run.stderr,
    exitCode: run.exitCode,
    duration,
    ...(run.timedOut ? { timedOut: true } : {}),
    ...(run.limit ? { limit: run.limit } : {}),
    ...(truncated ? { truncated: true } : {}),
  };
  const notes: string[] = [];
  if (run.limit === "cpu") notes.push(`Killed: the CPU time limit (${limits.cpuSeconds} s) was reached.`);
  if (run.limit === "fileSize") notes.push(`Killed: a file grew past the file size limit (${mb(limits.fileSizeBytes)}).`);
  if (run.limit === "processes") notes.push(`Killed: the program started more than ${limits.processes} processes.`);
  const changed = "readOnly" in settled ? undefined : settled;
  if (changed) notes.push(...describeSettled(changed));
  const sections: string[] = [];
  const where = "readOnly" in settled ? `, workspace read-only: ${settled.readOnly}` : "";
  const head = run.timedOut
    ? `Timed out after ${timeoutS} s: the program and every process it started were killed. Output so far:`
    : `Exit code: ${run.exitCode} (${formatDuration(duration)}, sandboxed${network ? "" : ", no network"}${where})`;
  sections.push(head, ...notes);
  if (run.stdout) sections.push(`--- stdout ---\n${run.stdout.replace(/\n$/, "")}`);
  if (run.stderr) sections.push(`--- stderr ---\n${run.stderr.replace(/\n$/, "")}`);
  if (!run.stdout && !run.stderr) sections.push("(no output)");
  const content = sections.join("\n");
  const changedPaths = (changed?.applied ?? []).map((c) => ({ path: c.path, operation: c.operation }));
  if (run.timedOut) return { content, isError: true, errorCode: "TIMEOUT", structured, ...(changedPaths.length ? { changedPaths } : {}) };
  return {
    content,
    structured,
    metadata: { exitCode: run.exitCode, durationMs: duration, processGuard: run.processGuard },
    ...(changedPaths.length ? { changedPaths } : {}),
  };
}

/** What the model is told of the code's changes: what reached the workspace, what did not, and why. */
function describeSettled(s: Settled): string[] {
  const notes: string[] = [];
  if (s.tooMany) {
    notes.push(`The code changed ${s.tooMany} entries, more than run_code applies at once; none was applied. Change fewer files per run.`);
  }
  if (s.applied.length) notes.push(`Applied to the workspace:\n${summariseChanges({ changes: s.applied, ignored: [] })}`);
  if (s.held && s.held.changes.length) {
    const said = s.held.message ? ` The user said: "${s.held.message}".` : "";
    notes.push(
      `Not applied (${s.held.reason}); the workspace is unchanged.${said} What the code changed in its copy:\n` +
        summariseChanges({ changes: s.held.changes, ignored: [] }),
    );
  }
  for (const r of s.refused) notes.push(`Never applied: ${r.path} (${r.why}).`);
  for (const r of s.ignored) notes.push(`Not applied: ${r.path} (${r.why}).`);
  if (s.applied.some((c) => c.droppedBits)) notes.push("Setuid, setgid and sticky bits the code set were dropped.");
  return notes;
}

/** The limits as the model should know them, appended to the description. */
function describeLimits(limits: typeof DEFAULT_SANDBOX_LIMITS, network: boolean): string {
  return (
    `Limits here: CPU time ${limits.cpuSeconds} s per process, memory ${mb(limits.memoryBytes)} per process, ` +
    `${limits.processes} processes, files up to ${mb(limits.fileSizeBytes)}, /tmp ${mb(limits.tmpBytes)}; ` +
    (network ? "network access is enabled." : "no network.")
  );
}

function mb(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MB`;
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
}
