import type { ToolContext } from "../../core/tool.js";
import type { Assessment } from "../../core/tool.js";
import { judgeCommand, toAssessment, type CommandJudgement } from "./command-policy.js";

/**
 * Judges `command` as it would run in `cwd` (workspace-relative), once per call: the policy asks
 * the scope and the assessment separately, and execute asks again, all from one parse. `bwrap`
 * is the configured bubblewrap (`sandbox.bwrap`), which the judgement's own git runs use too.
 */
export function judgeOnce(
  command: string,
  cwd: string | undefined,
  ctx: ToolContext,
  bwrap: string | undefined,
): Promise<CommandJudgement | { cwdError: string }> {
  return ctx.memo.once(`judge:${cwd ?? "."}:${command}`, async () => {
    let absolute: string;
    try {
      absolute = (await ctx.workspace.resolve(cwd ?? ".")).absolute;
    } catch (err) {
      return { cwdError: (err as Error).message };
    }
    return judgeCommand(command, absolute, ctx.workspace, undefined, { bwrap });
  });
}

/** What rules match for a command: its parsed parts, or the text as written when cwd is unusable. */
export async function commandSubjects(
  command: string,
  cwd: string | undefined,
  ctx: ToolContext,
  bwrap: string | undefined,
): Promise<string[]> {
  const j = await judgeOnce(command, cwd, ctx, bwrap);
  return "cwdError" in j ? [command] : j.subjects;
}

/** The policy's view of a command: denied when its cwd is unusable, else what the judgement says. */
export async function commandAssessment(
  command: string,
  cwd: string | undefined,
  ctx: ToolContext,
  bwrap: string | undefined,
  unconfined = false,
): Promise<Assessment> {
  const j = await judgeOnce(command, cwd, ctx, bwrap);
  if ("cwdError" in j) return { deny: `cwd is not usable: ${j.cwdError}` };
  const assessment = toAssessment(j);
  if (!unconfined) return assessment;
  return {
    ...assessment,
    effect: assessment.effect === "destructive" ? "destructive" : "execute",
    confirm: "it asks to run outside the sandbox, with the whole file system and the network; only a person approves that",
  };
}
