import type { ToolContext } from "../../core/tool.js";
import { judgeCommand, type CommandJudgement } from "./command-policy.js";

/**
 * The policy asks a call's scope and its assessment separately, with the same arguments object:
 * judging once per arguments object parses the command once per call.
 */
const cache = new WeakMap<object, Promise<CommandJudgement | { cwdError: string }>>();

/** Judges `command` as it would run in `cwd` (workspace-relative), once per arguments object. */
export function judgeOnce(args: object, command: string, cwd: string | undefined, ctx: ToolContext): Promise<CommandJudgement | { cwdError: string }> {
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
