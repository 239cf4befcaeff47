import { existsSync } from "node:fs";
import path from "node:path";
import type { Effect } from "../core/effect.js";
import type { AnyTool, ToolConfirmation } from "../core/tool.js";
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

/** What a file tool does to its paths, for the message; write_file's verb depends on the file. */
const PATH_VERBS: Readonly<Record<string, string>> = {
  read_file: "Read",
  list_directory: "List",
  edit_file: "Edit",
  multi_edit: "Edit",
  apply_patch: "Patch",
  append_file: "Append to",
  delete_file: "Delete",
  move_file: "Move",
  copy_file: "Copy",
  create_directory: "Create the folder",
};

/**
 * The decision as spec 001's `ToolConfirmation`: `required` when a person will be asked (or the
 * call is refused: it runs in no case without a change of rules), `type` from the effect the
 * policy judged, and a message naming what the call does.
 */
export function confirmationOf(
  decision: Decision,
  tool: AnyTool,
  canonical: string,
  args: Record<string, unknown>,
  subjects: readonly string[],
  root: string,
): CallConfirmation {
  return {
    required: decision.action !== "allow",
    type: confirmationType(decision.effect),
    message: actionMessage(tool, canonical, args, subjects, root),
    action: decision.action,
    reason: decision.reason,
  };
}

function confirmationType(effect: Effect): CallConfirmation["type"] {
  // Spec 001 has no network type; a request leaves the machine like a command does.
  return effect === "network" ? "execute" : effect;
}

function actionMessage(tool: AnyTool, canonical: string, args: Record<string, unknown>, subjects: readonly string[], root: string): string {
  const kind = tool.scope?.kind;
  if (kind === "command") {
    const command = typeof args.command === "string" ? args.command : subjects.join(" && ");
    return `Run \`${shown(command)}\``;
  }
  if (kind === "path" && subjects.length > 0) {
    const names = subjects.map((s) => shown(s));
    if (canonical === "write_file") {
      return `${existsSync(path.resolve(root, subjects[0]!)) ? "Overwrite" : "Create"} ${names[0]}`;
    }
    const verb = PATH_VERBS[canonical];
    if ((canonical === "move_file" || canonical === "copy_file") && names.length === 2) return `${verb} ${names[0]} to ${names[1]}`;
    return `${verb ?? tool.title ?? canonical} ${names.join(", ")}`;
  }
  if (kind === "domain" && typeof args.url === "string") return `Fetch ${shown(args.url)}`;
  const json = JSON.stringify(args);
  return `${tool.title ?? canonical}${json === "{}" ? "" : ` ${shown(json)}`}`;
}

/** A value a model chose, on one line, its controls made visible, of a length read at a glance. */
function shown(text: string, max = 200): string {
  const flat = oneLine(text);
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
