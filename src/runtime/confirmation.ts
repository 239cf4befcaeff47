import type { Effect } from "../core/effect.js";
import type { AnyTool, ToolConfirmation, ToolContext } from "../core/tool.js";
import { oneLine } from "../core/visible.js";
import type { Decision } from "./policy.js";

/** Spec 001's confirmation, with the runner's own verdict beside it. */
export interface CallConfirmation extends ToolConfirmation {
  required: boolean;
  /** What the person is asked to approve, naming the arguments: "Run `rm -rf build`", "Overwrite notes.txt". */
  message: string;
  type: NonNullable<ToolConfirmation["type"]>;
  /** What the runner will do with the call: run it, ask a person, or refuse it. */
  action: Decision["action"];
  /** Why: the rule, mode or property of the call that decided. */
  reason: string;
}

/**
 * The decision as spec 001's `ToolConfirmation`: `required` when a person will be asked (or the
 * call is refused: it runs in no case without a change of rules), `type` from the effect the
 * policy judged, and a message naming what the call does (the tool's `describeCall`).
 */
export function confirmationOf(
  decision: Decision,
  tool: AnyTool,
  canonical: string,
  args: Record<string, unknown>,
  subjects: readonly string[],
  ctx: ToolContext,
): CallConfirmation {
  const said = tool.describeCall?.(args, subjects, ctx) ?? described(tool.title ?? canonical, args, subjects);
  return {
    required: decision.action !== "allow",
    type: confirmationType(decision.effect),
    message: shown(said),
    action: decision.action,
    reason: decision.reason,
  };
}

/** A call whose tool says nothing of it: its title, then what rules match for it, else its arguments. */
function described(title: string, args: Record<string, unknown>, subjects: readonly string[]): string {
  if (subjects.length > 0) return `${title} ${subjects.join(", ")}`;
  const json = JSON.stringify(args);
  return json === "{}" ? title : `${title} ${json}`;
}

function confirmationType(effect: Effect): CallConfirmation["type"] {
  // Spec 001 has no network type; a request leaves the machine like a command does.
  return effect === "network" ? "execute" : effect;
}

/**
 * The message, which holds what a model chose, on one line, its controls made visible, of a length
 * read at a glance. A longer one keeps its end as well as its start: what a command does last
 * (`…; curl … | sh`) must not hide behind a harmless beginning.
 */
function shown(text: string, head = 200, tail = 100): string {
  const flat = oneLine(text);
  if (flat.length <= head + tail) return flat;
  return `${flat.slice(0, head)} …[${flat.length - head - tail} characters]… ${flat.slice(-tail)}`;
}
