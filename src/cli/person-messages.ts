import type { ToolOutcome } from "../core/result.js";
import type { Palette } from "./colour.js";

/** What the command line saw of one call besides its outcome, to explain it to a person. */
export interface CallStory {
  /** Why the policy wanted a person, when it asked. */
  askedBecause?: string;
  /** Nobody could be asked (no terminal); the call was turned down for that alone. */
  nobodyToAsk?: boolean;
  /** Why the policy refused the call outright. */
  deniedBecause?: string;
  /** The narrowest allow rules that would have let the call run. */
  rules?: string[];
  /** The tool's output was already shown as it arrived; the message need not repeat it. */
  streamed?: boolean;
  /** The approval mode was already `all`: advice never suggests what is already on. */
  modeAll?: boolean;
}

const shellQuote = (text: string) => (/^[\w./:@%+=-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

/**
 * An outcome that did not succeed, as advice to a person at a terminal: what happened and what
 * they can do. The text addressed to the model ("do not retry the same call") stays in `--json`.
 */
export function personMessage(outcome: ToolOutcome, story: CallStory, colour: Palette): string {
  const tool = colour.strong(outcome.toolName);
  if (outcome.status === "cancelled" || outcome.error?.code === "CANCELLED") {
    return `${colour.warning("Cancelled")}: ${tool} was stopped before it finished.`;
  }
  if (outcome.status === "rejected" && outcome.error?.code === "PERMISSION_DENIED") {
    const reason = story.deniedBecause ?? outcome.error.message.replace(/^Not allowed: /, "").replace(/\. This is policy.*$/s, "");
    const rule = /denied by the rule "(.+)"/.exec(reason)?.[1];
    // Files that may hold secrets are refused unless a rule names the call; the reason gives that rule.
    const naming = /permissions\.allow: \["(.+?)"\]/.exec(reason)?.[1];
    const hint = rule
      ? `\n${colour.dim(`To let it run, remove that rule: tackle rules remove ${shellQuote(rule)}`)}`
      : naming
        ? `\n${colour.dim(`To let it run, add a rule naming it: tackle rules add ${shellQuote(naming)}`)}`
        : "";
    return `${colour.failure("Refused")}: ${tool} was not run: ${reason}.${hint}`;
  }
  if (outcome.status === "rejected") {
    if (story.nobodyToAsk) {
      const rules = story.rules ?? [];
      const why = story.askedBecause ? ` (${story.askedBecause})` : "";
      const head = `${colour.warning("Not run")}: ${tool} needs approval${why}, and no terminal is attached to ask.`;
      const orAll = story.modeAll ? "" : ", or add --approval all";
      if (rules.length === 0) {
        return `${head}\n${colour.dim(`No rule can allow it: run it from a terminal to approve it${orAll}.`)}`;
      }
      return [
        head,
        colour.dim(
          `To run it, call it from a terminal${story.modeAll ? "" : ", add --approval all,"} or allow it for good${rules.length > 1 ? " (all of these)" : ""}:`,
        ),
        ...rules.map((r) => `  tackle rules add ${shellQuote(r)}`),
      ].join("\n");
    }
    const said = outcome.userMessage ? ` Your message: "${outcome.userMessage}".` : "";
    return `${colour.warning("Not run")}: you declined ${tool}.${said}`;
  }
  const error = outcome.error;
  if (!error) return `${colour.failure("Failed")}: ${outcome.content}`;
  const code = colour.dim(`(${error.code})`);
  if (error.code === "UNKNOWN_TOOL")
    return `${colour.failure("Unknown tool")}: ${error.message} ${colour.dim("Run tackle tools to list them.")}`;
  if (error.code === "INVALID_ARGS") {
    // The model's wording says what this line already does: its own heading, and what to do next.
    const detail = error.message.replace(/^Invalid arguments: /, "").replace(/ Fix the arguments and call \S+ again\.$/, "");
    return `${colour.failure("Invalid arguments")}: ${forPeople(detail)}\n${colour.dim(`Run tackle tools ${outcome.toolName} to see what it takes.`)}`;
  }
  const message = story.streamed ? error.message.split("\n")[0]!.replace(/ Output before it stopped:$/, "") : error.message;
  return `${colour.failure("Failed")}: ${forPeople(message)} ${code}`;
}

/**
 * Text written for a model, as a person at the command line reads it: a parameter to set becomes
 * the `name=value` they would type, and a tool to use becomes the command that runs it. `--json`
 * keeps the model's text.
 */
export function forPeople(text: string): string {
  return text
    .replace(/\bset (\w+) to (true|false|\d+)\b/g, "add $1=$2")
    .replace(/\bUse (\w+) on "([^"]*)"/g, (_m, tool: string, where: string) => `Run tackle call ${tool} path=${shellQuote(where)}`);
}
