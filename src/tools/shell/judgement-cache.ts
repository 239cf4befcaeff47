import type { ToolContext } from "../../core/tool.js";
import type { Assessment } from "../../core/tool.js";
import { judgeCommand, toAssessment, type CommandJudgement } from "./command-policy.js";

/**
 * The policy asks a call's scope and its assessment separately, with the same arguments object:
 * judging once per arguments object parses the command once per call.
 */
const cache = new WeakMap<object, Promise<CommandJudgement | { cwdError: string }>>();

/** Judges `command` as it would run in `cwd` (workspace-relative), once per arguments object. */
export function judgeOnce(
  args: object,
  command: string,
  cwd: string | undefined,
  ctx: ToolContext,
): Promise<CommandJudgement | { cwdError: string }> {
  let hit = cache.get(args);
  if (!hit) {
    hit = (async () => {
      let absolute: string;
      try {
        absolute = (await ctx.workspace.resolve(cwd ?? ".")).absolute;
      } catch (err) {
        return { cwdError: (err as Error).message };
      }
      return judgeCommand(command, absolute, ctx.workspace);
    })();
    cache.set(args, hit);
  }
  return hit;
}

/** What rules match for a command: its parsed parts, or the text as written when cwd is unusable. */
export async function commandSubjects(args: object, command: string, cwd: string | undefined, ctx: ToolContext): Promise<string[]> {
  const j = await judgeOnce(args, command, cwd, ctx);
  return "cwdError" in j ? [command] : j.subjects;
}

/** The policy's view of a command: denied when its cwd is unusable, else what the judgement says. */
export async function commandAssessment(args: object, command: string, cwd: string | undefined, ctx: ToolContext): Promise<Assessment> {
  const j = await judgeOnce(args, command, cwd, ctx);
  if ("cwdError" in j) return { deny: `cwd is not usable: ${j.cwdError}` };
  return toAssessment(j);
}
