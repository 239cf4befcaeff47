import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import type { ToolExecutionResult } from "../../core/result.js";
import type { AnyTool, ToolContext } from "../../core/tool.js";
import { commandAssessment, commandSubjects, judgeOnce } from "./command-judgement.js";
import { launchEnv, launchFor, warmLaunch, type Launch, type LaunchSettings } from "./sandbox-launcher.js";
import { runCommand, type CommandResult } from "./run-command.js";
import { directArgv } from "./direct-exec.js";
import { warmBashParser } from "./analysis/bash-parser.js";
import { reportRunning } from "../progress.js";
import type { ShellSettings } from "./settings.js";
import { statOrUndefined } from "../../workspace/stat.js";
import { forgetTackleFolders } from "../../workspace/own-folders.js";

export interface ShellToolOptions {
  name: string;
  title: string;
  descriptionFile: string;
  defaultTimeoutMs: number;
  settings: ShellSettings;
  launch: LaunchSettings;
}

const MAX_TIMEOUT_MS = 3_600_000;

/** The structured result (MCP structuredContent): each stream cut to head + tail when long. */
export const ShellOutputSchema = z.object({
  stdout: z.string(),
  stderr: z.string(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  durationMs: z.number(),
});
/** The runner's own limit waits this much longer, so the tool's timeout (with its partial output) wins. */
const RUNNER_GRACE_MS = 5_000;

/** The runner adds its folder of cut outputs as a read-only extra root; long outputs go there so read_file reaches them. */
export function readableSpillDir(ctx: ToolContext): string | undefined {
  return ctx.workspace.extraRoots.find((r) => !r.writable && path.basename(r.path).startsWith("tackle-output-"))?.path;
}

/** Resolves `cwd` inside the workspace and checks it is a directory. */
export async function resolveCwd(cwd: string | undefined, ctx: ToolContext): Promise<string> {
  const resolved = await ctx.workspace.resolve(cwd ?? ".");
  if (resolved.root !== ctx.workspace.root) throw new ToolError("INVALID_PATH", `cwd must be inside the workspace ${ctx.workspace.root}.`);
  // Synchronously: a thread-pool round trip costs more than the stat.
  let st;
  try {
    st = statOrUndefined(resolved.absolute);
  } catch {
    st = undefined;
  }
  if (!st) throw new ToolError("FILE_NOT_FOUND", `The directory "${cwd}" does not exist; create it first or use another cwd.`);
  if (!st.isDirectory()) throw new ToolError("INVALID_PATH", `"${cwd}" is a file, not a directory.`);
  return resolved.absolute;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Terminal noise the model cannot use: colour and cursor escapes (from programs that ignore
 * NO_COLOR), and progress bars redrawn with a bare carriage return (only the last state is kept).
 */
export function cleanForModel(text: string): string {
  return text
    .replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g, "")
    .replace(/\r\n/g, "\n")
    .replace(/^[^\n]*\r(?=[^\n])/gm, "")
    .replace(/\r/g, "");
}

/** What the model reads about a finished command. */
export function formatResult(
  r: CommandResult,
  timeoutMs: number,
  settings: ShellSettings,
): { content: string; errorCode?: "TIMEOUT" | "CANCELLED" } {
  const cleaned = cleanForModel(r.output);
  const body = cleaned.length ? cleaned : "(no output)";
  const lines = [body.endsWith("\n") ? body.slice(0, -1) : body];
  if (r.ended === "timeout") {
    return {
      content:
        `The command timed out after ${seconds(timeoutMs)}; it and every process it started were stopped. Output ` +
        `before it stopped:\n${lines[0]}\n[Raise \`timeout\`, or use shell_background for long-running commands.]`,
      errorCode: "TIMEOUT",
    };
  }
  if (r.ended === "inactive") {
    const why = r.promptLike
      ? `it printed nothing for ${seconds(settings.promptTimeoutMs)} after what looks like a prompt, so it seems to be waiting for input it ` +
        `cannot get (stdin is closed). Use non-interactive flags (-y, --yes, --no-input, --non-interactive) or provide the answer another way`
      : `it printed nothing for ${seconds(settings.inactivityTimeoutMs)}; if it was waiting ` +
        `for input, use non-interactive flags; for long silent work use shell_background`;
    return { content: `The command was stopped because ${why}. Output before it stopped:\n${lines[0]}`, errorCode: "TIMEOUT" };
  }
  if (r.ended === "aborted")
    return { content: `The command was cancelled and stopped. Output before it stopped:\n${lines[0]}`, errorCode: "CANCELLED" };
  if (r.signal) lines.push(`[killed by signal ${r.signal}]`);
  else if (r.exitCode !== 0) lines.push(`[exit code ${r.exitCode}]`);
  if (r.strayProcessesKilled)
    lines.push("[processes it left running in the background were stopped; use shell_background for servers and watchers]");
  return { content: lines.join("\n") };
}

/** Whether a call asks to run outside the sandbox while one is configured: that needs a person. */
export function unconfinedAsked(args: { unconfined?: boolean | undefined }, settings: ShellSettings): boolean {
  return args.unconfined === true && settings.sandbox.mode !== "off";
}

/** What a failure inside the workspace sandbox looks like: a write outside it, or no network. */
const BLOCKED = new RegExp(
  [
    "read-only file system",
    "EROFS",
    "network is unreachable",
    "ENETUNREACH",
    "could not resolve host",
    "temporary failure in name resolution",
    "EAI_AGAIN",
    "name or service not known",
  ].join("|"),
  "i",
);

/** What a failure for want of a credential looks like. */
const UNAUTHORISED = new RegExp(
  [
    "unauthori[sz]ed|forbidden|authenticat|credential|api[ _-]?key|password|not logged in|log ?in first|\\b40[13]\\b",
    "(?:access|auth|bad|invalid|missing|no) token|token (?:is )?(?:missing|required|not set)",
  ].join("|"),
  "i",
);

/**
 * A line telling the model that variables were withheld, when a failed command may have needed
 * one: it named one, or failed as a command without a credential does.
 */
function withheldNote(launch: Launch, r: CommandResult): string | undefined {
  const withheld = launch.withheld;
  if (!withheld?.length || r.exitCode === 0) return undefined;
  if (!UNAUTHORISED.test(r.output) && !withheld.some((name) => r.output.includes(name))) return undefined;
  const names = withheld.length > 4 ? `${withheld.slice(0, 4).join(", ")} and ${withheld.length - 4} more` : withheld.join(", ");
  return `[Variables that may hold secrets were withheld from this command (${names}): only a command a person or a rule approved gets them.]`;
}

/** A line telling the model what the sandbox did, when a failed command may have met it. */
function sandboxNote(
  launch: Launch,
  r: CommandResult,
  remedy = "If the command needs more, call again with unconfined: true (the person is asked).",
): string | undefined {
  if (r.exitCode === 0) return undefined;
  if (launch.confinement !== "read-only" && launch.confinement !== "none" && /device or resource busy|EBUSY/i.test(r.output)) {
    return `[The sandbox keeps each folder that holds a secret or tackle's configuration in its place: no command run in it moves or renames one. ${remedy}]`;
  }
  if (!BLOCKED.test(r.output)) return undefined;
  if (launch.confinement === "workspace") {
    const net = launch.network ? "" : " and has no network";
    return `[The sandbox may have blocked this: it can write only the workspace and shell.sandbox.writableRoots${net}. ${remedy}]`;
  }
  if (launch.confinement === "read-only") {
    return "[This ran read-only with no network, as it was judged to only read. If it must write, say so to the person.]";
  }
  return undefined;
}

/**
 * bubblewrap exits with 128 + N when the command dies of signal N, as a shell does: read back as
 * the signal, so a sandboxed command that crashed reads as one that ran on the host.
 */
function signalFromSandbox(r: CommandResult): CommandResult {
  if (r.signal || r.exitCode === null || r.exitCode <= 128 || r.ended !== "exit") return r;
  const name = Object.entries(os.constants.signals).find(([, n]) => n === r.exitCode! - 128)?.[0];
  return name ? { ...r, signal: name as NodeJS.Signals, exitCode: null } : r;
}

/**
 * What a command `launchFor` chose how to run left, once it ended: its result as the host would
 * give it (a signal, not bubblewrap's 128 + N), and what tackle adds after its output (the
 * sandbox's part in a failure, files moved aside), which also goes to metadata so a front end that
 * streamed the output shows it too. `remedy` says how the model gets more than the sandbox gives.
 */
export async function settleLaunch(
  launch: Launch,
  raw: CommandResult,
  remedy?: string,
): Promise<{ result: CommandResult; notes: string[] }> {
  const result = launch.argv ? signalFromSandbox(raw) : raw;
  const notes = [sandboxNote(launch, result, remedy), withheldNote(launch, result), await launch.afterRun?.()].filter(
    (n): n is string => n !== undefined,
  );
  return { result, notes };
}

function confinementMetadata(launch: Launch): Record<string, unknown> {
  return {
    sandbox: launch.confinement,
    ...(launch.confinement === "workspace" ? { network: launch.network === true } : {}),
    ...(launch.unconfinedBecause ? { unsandboxedBecause: launch.unconfinedBecause } : {}),
    ...(launch.withheld ? { withheldVariables: launch.withheld } : {}),
    // Older names, kept for callers that read them.
    ...(launch.confinement === "strict" ? { sandboxed: true } : { confined: launch.confinement === "read-only" }),
  };
}

/** Builds `shell`, `bash` (the same with a 30-second default) or another name over the same engine. */
export function createShellTool(options: ShellToolOptions): AnyTool {
  const { settings } = options;
  const bwrap = options.launch.sandbox.bwrap;
  const input = z.object({
    command: z.string().min(1, "command is empty").describe("The bash command to run"),
    timeout: z
      .number()
      .int()
      .positive()
      .max(MAX_TIMEOUT_MS)
      .optional()
      .describe(`Time limit in milliseconds (default ${options.defaultTimeoutMs})`),
    cwd: z.string().optional().describe("Directory inside the workspace to run in (default: the workspace root)"),
    unconfined: z
      .boolean()
      .optional()
      .describe(
        "Run outside the sandbox, with the whole file system and the network; the person is asked every time. " +
          "Only after the sandbox blocked a command that needs more.",
      ),
  });
  type Args = z.output<typeof input>;

  return defineTool({
    name: options.name,
    title: options.title,
    description: loadDescription(import.meta.url, options.descriptionFile),
    input,
    output: ShellOutputSchema,
    effect: "execute",
    idempotent: false,
    cacheable: false,
    scope: { kind: "command", subjects: (args: Args, ctx) => commandSubjects(args.command, args.cwd, ctx, bwrap) },
    describeCall: (args: Args) => `Run \`${args.command}\``,
    prepare: async () => {
      warmLaunch(options.launch);
      await warmBashParser();
    },
    // The policy assesses first, before anything else of the call: the sandbox probe starts there.
    assess: (args: Args, ctx) => {
      warmLaunch(options.launch);
      return commandAssessment(args.command, args.cwd, ctx, bwrap, unconfinedAsked(args, settings));
    },
    preview: async (args: Args, ctx) => {
      const j = await judgeOnce(args.command, args.cwd, ctx, bwrap);
      if ("cwdError" in j) return undefined;
      const parts = j.subjects.map((s) => `  ${s}`).join("\n");
      const outside = unconfinedAsked(args, settings) ? "\nOutside the sandbox: the whole file system and the network." : "";
      return `$ ${args.command}\nRuns:\n${parts}${outside}${j.ask ? `\nWhy it asks: ${j.ask}` : ""}`;
    },
    timeoutMs: (args: Args) => (args.timeout ?? options.defaultTimeoutMs) + settings.killGraceMs + RUNNER_GRACE_MS,
    execute: async (args: Args, ctx): Promise<ToolExecutionResult> => {
      const cwd = await resolveCwd(args.cwd, ctx);
      const timeoutMs = args.timeout ?? options.defaultTimeoutMs;
      const launch = await launchFor(args.command, args.cwd, cwd, ctx, options.launch, {
        timeoutMs,
        ...(args.unconfined ? { unconfined: true } : {}),
      });
      // A plain command (`git status`) is exec'd as bash would exec it, without paying for bash.
      const direct = launch.argv ? undefined : directArgv(args.command);
      const spillDir = readableSpillDir(ctx);
      const progress = reportRunning(ctx);
      const raw = await runCommand({
        command: args.command,
        cwd,
        env: launchEnv(launch, settings.env),
        timeoutMs,
        inactivityMs: settings.inactivityTimeoutMs,
        promptInactivityMs: settings.promptTimeoutMs,
        killGraceMs: settings.killGraceMs,
        signal: ctx.signal,
        onOutput: (chunk) => {
          progress.printed(chunk.length);
          ctx.onOutput(chunk);
        },
        limits: { headChars: settings.headChars, tailChars: settings.tailChars },
        outputName: `${options.name}-${ctx.toolCallId}`,
        ...(spillDir ? { spillDir } : {}),
        ...(launch.argv ? { argv: () => launch.argv! } : {}),
        ...(direct ? { argv: () => ({ file: direct[0]!, args: direct.slice(1) }), direct: true } : {}),
      }).finally(() => {
        progress.stop();
        // It may have re-pointed a link above one of tackle's folders.
        forgetTackleFolders();
      });
      const { result, notes } = await settleLaunch(launch, raw);
      const formatted = formatResult(result, timeoutMs, settings);
      const { errorCode } = formatted;
      const content = formatted.content + notes.map((n) => `\n${n}`).join("");
      const structured = {
        stdout: result.stdout,
        stderr: result.stderr,
        exitCode: result.exitCode,
        signal: result.signal,
        durationMs: Math.round(result.durationMs),
      };
      const metadata: Record<string, unknown> = {
        exitCode: result.exitCode,
        signal: result.signal,
        durationMs: Math.round(result.durationMs),
        ended: result.ended,
        ...(result.truncated ? { truncated: true } : {}),
        ...(result.fullOutputPath ? { fullOutputPath: result.fullOutputPath } : {}),
        ...confinementMetadata(launch),
        ...(notes.length ? { notes } : {}),
      };
      if (errorCode === "CANCELLED") throw new ToolError("CANCELLED", content);
      return { content, structured, metadata, ...(errorCode ? { isError: true, errorCode } : {}) };
    },
  });
}
