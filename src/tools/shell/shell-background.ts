import { z } from "zod";
import { defineTool } from "../../core/define-tool.js";
import { loadDescription } from "../../core/description.js";
import { ToolError } from "../../core/errors.js";
import type { AnyTool } from "../../core/tool.js";
import type { BackgroundJobs, Job } from "./background-jobs.js";
import { commandAssessment, commandSubjects } from "./command-judgement.js";
import { resolveCwd, unconfinedAsked } from "./shell.js";
import { launchEnv, launchFor, type Launch, type LaunchSettings } from "./sandbox-launcher.js";
import type { ShellSettings } from "./settings.js";
import { formatCount } from "../../core/format-count.js";

/** Characters one `read` returns at most (the latest); the rest is reported as skipped. */
const READ_LIMIT = 40_000;

const input = z
  .object({
    action: z
      .enum(["start", "read", "list", "stop"])
      .default("start")
      .describe("start a command, read its new output, list jobs, or stop one"),
    command: z.string().min(1).optional().describe("For start: the bash command to run in the background"),
    cwd: z.string().optional().describe("For start: directory inside the workspace (default: the workspace root)"),
    id: z.string().optional().describe("For read and stop: the job id that start returned"),
    unconfined: z
      .boolean()
      .optional()
      .describe("For start: run outside the sandbox (whole file system, network); the person is asked every time"),
  })
  .superRefine((a, ctx) => {
    if (a.action === "start" && !a.command) ctx.addIssue({ code: "custom", path: ["command"], message: 'action "start" needs a command' });
    if ((a.action === "read" || a.action === "stop") && !a.id)
      ctx.addIssue({ code: "custom", path: ["id"], message: `action "${a.action}" needs the job id` });
  });
type Args = z.output<typeof input>;

function state(j: Job, jobs?: BackgroundJobs): string {
  if (j.running) return "running";
  if (j.stoppedByRequest) return "stopped";
  const ended = j.signal ? `killed by ${j.signal}` : `exited with code ${j.exitCode}`;
  return jobs?.lingering(j) ? `${ended}; processes it started in the background are still running (stop it to end them)` : ended;
}

function describeJob(j: Job) {
  return {
    id: j.id,
    command: j.command,
    pid: j.pid,
    running: j.running,
    exitCode: j.exitCode,
    signal: j.signal,
    state: state(j),
    startedAt: j.startedAt.toISOString(),
  };
}

/** A line on the sandbox a job runs in: a server in it is reachable only when it shares the network. */
function whereItRuns(how: Launch): string {
  if (how.confinement === "none") return "";
  const lines = ["It runs in a sandbox: what it leaves running in the background (`server &`) ends when it ends."];
  if (how.confinement === "read-only") lines.push("It is read-only with no network, as it was judged to only read.");
  else if (!how.network) lines.push("It has no network: a server it starts is not reachable from outside the sandbox.");
  return `${lines.join(" ")}\n`;
}

/** `shell_background`: long-running commands with an `action` parameter. */
export function createBackgroundTool(jobs: BackgroundJobs, settings: ShellSettings, launch: LaunchSettings): AnyTool {
  const lookup = (id: string): Job => {
    const job = jobs.get(id);
    if (!job) {
      const known = jobs.list().map((j) => j.id);
      throw new ToolError(
        "INVALID_ARGS",
        `There is no background job "${id}".${known.length ? ` Jobs: ${known.join(", ")}.` : " No jobs have been started."}`,
      );
    }
    return job;
  };
  return defineTool({
    name: "shell_background",
    title: "Background command",
    description: loadDescription(import.meta.url, "shell-background.txt"),
    input,
    effect: "execute",
    idempotent: false,
    cacheable: false,
    scope: {
      kind: "command",
      subjects: async (args: Args, ctx) =>
        args.action === "start" && args.command ? commandSubjects(args.command, args.cwd, ctx, launch.sandbox.bwrap) : [],
    },
    describeCall: (args: Args) =>
      args.action === "start"
        ? `Run \`${args.command ?? ""}\` in the background`
        : `${args.action[0]!.toUpperCase()}${args.action.slice(1)} background jobs${args.id ? ` (${args.id})` : ""}`,
    assess: async (args: Args, ctx) => {
      if (args.action === "read" || args.action === "list") return { effect: "read" };
      if (args.action === "stop") return undefined;
      return commandAssessment(args.command!, args.cwd, ctx, launch.sandbox.bwrap, unconfinedAsked(args, settings));
    },
    // Stopping a job this session started needs nobody's approval in safe mode.
    needsApproval: (args: Args) => args.action === "start",
    execute: async (args: Args, ctx) => {
      switch (args.action) {
        case "start": {
          const cwd = await resolveCwd(args.cwd, ctx);
          const how = await launchFor(args.command!, args.cwd, cwd, ctx, launch, args.unconfined ? { unconfined: true } : {});
          const argv = how.argv;
          let job: Job;
          try {
            job = jobs.start({
              command: args.command!,
              cwd,
              env: launchEnv(how, settings.env),
              ...(argv ? { argv } : {}),
            });
          } catch (err) {
            throw new ToolError("UNAVAILABLE", (err as Error).message, { recoverable: false });
          }
          if (how.afterRun) {
            const check = how.afterRun;
            void job.done
              .then(() => check())
              .then(
                (note) => note && job.output.push(`\n${note}\n`),
                (err: unknown) => job.output.push(`\n[tackle could not check what the job left: ${(err as Error).message}]\n`),
              );
          }
          return {
            content:
              `Started ${job.id} (pid ${job.pid}): ${job.command}\n${whereItRuns(how)}Read its output with ` +
              `{"action":"read","id":"${job.id}"}; stop it with {"action":"stop","id":"${job.id}"}.`,
            structured: describeJob(job),
          };
        }
        case "read": {
          const job = lookup(args.id!);
          const { text, dropped } = job.output.readNew(READ_LIMIT);
          const lines = [`${job.id}: ${state(job, jobs)}`];
          if (dropped > 0) lines.push(`[${formatCount(dropped)} earlier characters were not kept; read more often to see everything]`);
          lines.push(text.length ? text : "(no new output)");
          return { content: lines.join("\n"), structured: { ...describeJob(job), output: text, droppedChars: dropped } };
        }
        case "list": {
          const all = jobs.list();
          if (all.length === 0) return { content: "No background jobs.", structured: { jobs: [] } };
          return {
            content: all.map((j) => `${j.id}  ${state(j, jobs)}  pid ${j.pid}  ${j.command}`).join("\n"),
            structured: { jobs: all.map(describeJob) },
          };
        }
        case "stop": {
          const job = lookup(args.id!);
          const wasRunning = job.running || jobs.lingering(job);
          await jobs.stop(job.id);
          const { text } = job.output.readNew(READ_LIMIT);
          const what = wasRunning ? `Stopped ${job.id} and every process it started.` : `${job.id} had already ended (${state(job)}).`;
          return {
            content: `${what}${text ? `\nLast output:\n${text}` : ""}`,
            structured: describeJob(job),
          };
        }
      }
    },
  });
}
