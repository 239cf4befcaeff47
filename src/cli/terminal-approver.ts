import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { ReadStream } from "node:tty";
import type { Approver, ApprovalRequest, ApprovalResponse } from "../runtime/approver.js";
import { looksLikeDiff, palette, type Palette } from "./colour.js";
import { foldLines, oneLine, terminalSafe } from "../core/visible.js";
import { editInEditor } from "./edit-in-editor.js";

export interface TerminalApproverOptions {
  input?: Readable;
  output?: Writable;
  /** Colours for the prompt; by default those `output` supports. */
  colour?: Palette;
  /**
   * Saves "always" to configuration: writes the narrowest allow rules for the call and returns
   * them, to show the person. Without it the prompt offers "always" for the session only.
   */
  saveRules?: (request: ApprovalRequest) => Promise<SavedRules>;
  /**
   * The process makes one call and ends (`tackle call`): "always for this session" would mean
   * nothing, so only what outlasts the call is offered (saving a rule).
   */
  oneCall?: boolean;
  /** The editor `e` opens on the arguments at a terminal; default `$VISUAL`, else `$EDITOR`. */
  editor?: string;
}

/** Rules written for "always, save to configuration", and where. */
export interface SavedRules {
  file: string;
  rules: string[];
}

/** A terminal that can hand over single keys (raw mode), rather than whole lines. */
function rawTerminal(input: Readable): ReadStream | undefined {
  const tty = input as Partial<ReadStream>;
  return tty.isTTY && typeof tty.setRawMode === "function" ? (input as ReadStream) : undefined;
}

/** Resolves when `signal` aborts, or after `ms` at the latest. */
function abortedWithin(signal: AbortSignal, ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** Ctrl-C and Ctrl-D typed while the terminal is in raw mode, where they raise no signal. */
const CTRL_C = "\u0003";
const CTRL_D = "\u0004";

/** Longest argument shown whole on the prompt; the rest is counted, and `?` shows all of it. */
const SHORT_VALUE = 200;

/** The arguments one per line, control characters and line breaks visible, long values cut with what is left counted. */
function summarise(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([k, v]) => {
      const shown = oneLine(typeof v === "string" ? v : JSON.stringify(v));
      const cut =
        shown.length > SHORT_VALUE ? `${shown.slice(0, SHORT_VALUE)}… (${shown.length - SHORT_VALUE} more characters; ? shows all)` : shown;
      return `    ${oneLine(k)}: ${cut}`;
    })
    .join("\n");
}

/** An approver that asks in a terminal; `close()` releases the input when done. */
export interface TerminalApprover extends Approver {
  close(): void;
}

/**
 * Spec 002's approval prompt in a terminal: y approve, n reject (with an optional message for
 * the model), a approve always, e edit the arguments, ? show the arguments and preview in full.
 * Prompts are asked one at a time even when calls run in parallel.
 */
export function terminalApprover(options: TerminalApproverOptions = {}): TerminalApprover {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  const colour = options.colour ?? palette(output as Writable & { isTTY?: boolean });
  const raw = rawTerminal(input);
  let queue: Promise<unknown> = Promise.resolve();
  // One reader for the approver's life: lines typed ahead are kept, not lost between prompts.
  let rl: ReturnType<typeof createInterface> | undefined;
  const buffered: string[] = [];
  const waiting: Array<(line: string | undefined) => void> = [];
  let closed = false;
  const reader = () => {
    if (!rl) {
      rl = createInterface({ input, terminal: false });
      rl.on("line", (line) => (waiting.length ? waiting.shift()!(line) : buffered.push(line)));
      rl.on("close", () => {
        closed = true;
        for (const w of waiting.splice(0)) w(undefined);
      });
    }
    rl.resume();
    return rl;
  };
  const nextLine = (signal: AbortSignal): Promise<string | undefined> => {
    reader();
    if (buffered.length) return Promise.resolve(buffered.shift());
    if (closed || signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const done = (line: string | undefined) => {
        signal.removeEventListener("abort", onAbort);
        resolve(line);
      };
      const onAbort = () => {
        waiting.splice(waiting.indexOf(done), 1);
        resolve(undefined);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      waiting.push(done);
    });
  };

  // In a terminal a line is read with the terminal's own editing, one reader per question, so
  // that single keys and lines never compete for the same input.
  const terminalLine = (signal: AbortSignal): Promise<string | undefined> =>
    new Promise((resolve) => {
      const once = createInterface({ input, terminal: false });
      const done = (line: string | undefined) => {
        signal.removeEventListener("abort", onAbort);
        once.removeAllListeners("close");
        once.close();
        input.pause();
        resolve(line);
      };
      const onAbort = () => done(undefined);
      signal.addEventListener("abort", onAbort, { once: true });
      once.once("line", done);
      once.once("close", () => done(undefined));
    });

  // One key, without Enter: raw mode for just as long as the key takes.
  const nextKey = (tty: ReadStream, signal: AbortSignal): Promise<string | undefined> =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve(undefined);
      const done = (key: string | undefined) => {
        tty.off("data", onData);
        signal.removeEventListener("abort", onAbort);
        tty.setRawMode(false);
        tty.pause();
        resolve(key);
      };
      const onData = (data: Buffer | string) => {
        const text = String(data);
        // Esc alone is a key; an arrow or function key is one escape sequence, taken whole.
        if (text.startsWith("\u001b")) return done(text);
        // Keys typed ahead ("n", then a message) are kept for the next question; an Enter
        // pressed out of habit right after the key is not.
        const rest = text.slice(1).replace(/^\r?\n|^\r/, "");
        done(text[0]);
        if (rest !== "") tty.unshift(Buffer.from(rest));
      };
      const onAbort = () => done(undefined);
      signal.addEventListener("abort", onAbort, { once: true });
      tty.setRawMode(true);
      tty.on("data", onData);
      tty.resume();
    });

  const ask = async (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse> => {
    const question = async (text: string): Promise<string | undefined> => {
      output.write(text);
      return (await (raw ? terminalLine(signal) : nextLine(signal)))?.trim();
    };
    const choice = async (text: string): Promise<string | undefined> => {
      if (!raw) return (await question(text))?.toLowerCase();
      // Raw before the prompt shows, so a key typed at once is neither echoed nor held for Enter.
      raw.setRawMode(true);
      output.write(text);
      for (;;) {
        const key = await nextKey(raw, signal);
        if (key === undefined || key.startsWith(CTRL_D)) return undefined;
        if (key.startsWith(CTRL_C)) {
          output.write("\n");
          // Raw mode swallowed the signal; raise it, so Ctrl-C stops the call as it would anywhere else.
          // Waiting for the abort it causes lets the call end as cancelled, not as declined.
          process.kill(process.pid, "SIGINT");
          await abortedWithin(signal, 2000);
          throw new Error("interrupted at the approval prompt");
        }
        // Esc rejects; Enter, arrows and other escape sequences are not answers: wait for a letter.
        if (key === "\u001b") {
          output.write("Esc\n");
          return "esc";
        }
        if (key === "\r" || key === "\n" || key.startsWith("\u001b")) continue;
        output.write(`${key}\n`);
        return key.toLowerCase();
      }
    };
    const session = !options.oneCall;
    const editor = options.editor ?? (process.env.VISUAL || process.env.EDITOR);
    let draft: string | undefined;
    /** Arguments the person edited and saw the new preview of, waiting for their y. */
    let edited: Record<string, unknown> | undefined;
    /** The preview of what y runs now: the request's, or the edited arguments'. */
    let preview = request.preview;
    /** Yes, for the arguments as they now stand (edited ones too, whatever key says yes). */
    const approve = (answer: Omit<ApprovalResponse, "approved">): ApprovalResponse => ({
      approved: true,
      ...answer,
      ...(edited ? { modifiedArgs: edited } : {}),
    });
    const showPreview = () => {
      if (!preview) return;
      const shown = foldLines(preview, 40);
      output.write(`${looksLikeDiff(shown) || shown.startsWith("---") ? colour.diff(shown) : shown}\n`);
    };
    /**
     * Shows what edited arguments would do (the new diff) and keeps them for the next y; without a
     * way to preview them, they are the answer at once. False when they do not validate.
     */
    const review = async (args: Record<string, unknown>): Promise<boolean | "run"> => {
      if (!request.previewFor) return "run";
      try {
        preview = await request.previewFor(args);
        edited = args;
      } catch (err) {
        output.write(`${colour.failure("Not used")}: ${terminalSafe((err as Error).message)} e edits them again.\n`);
        return false;
      }
      output.write(`New arguments:\n${summarise(args)}\n`);
      showPreview();
      return true;
    };
    const keys = ["y", "n", ...(session ? ["a", "w"] : []), ...(options.saveRules ? ["s"] : []), "e"].join(", ") + " or ?";
    // "Always" names what it keeps, the narrowest rules for this call; w widens it on purpose.
    const kept = request.alwaysRules?.length ? ` (${request.alwaysRules.map(oneLine).join(", ")})` : "";
    const menu =
      "Approve? [y]es / [n]o (Esc) / " +
      (session ? `[a]lways${kept}, this session / [w]ider rule / ` : "") +
      (options.saveRules ? (session ? "[s]ave: always, in configuration / " : "[s]ave a rule for it in configuration / ") : "") +
      "[e]dit / [?] more: ";
    try {
      const tool = colour.strong(oneLine(request.tool));
      output.write(
        `\n${colour.warning("tackle:")} ${tool} wants to run (${request.effect}): ${oneLine(request.reason)}\n${summarise(request.args)}\n`,
      );
      showPreview();
      for (;;) {
        const answer = await choice(menu);
        if (answer === undefined) return { approved: false, message: "no answer came from the terminal", automatic: true };
        if (answer === "y" || answer === "yes") return approve({});
        if (answer === "esc") return { approved: false };
        if (session && (answer === "a" || answer === "always")) return approve({ always: true });
        if (session && answer === "w") {
          const rule = await question(
            `Rule to allow for this session; it must cover this call (${request.tool}(src/**), ${request.tool}): `,
          );
          if (rule === undefined) return { approved: false, message: "no answer came from the terminal", automatic: true };
          if (rule === "") continue;
          return approve({ always: true, alwaysRule: rule });
        }
        if ((answer === "s" || answer === "save") && options.saveRules) {
          try {
            const { file, rules } = await options.saveRules(edited ? { ...request, args: edited } : request);
            if (rules.length === 0) {
              output.write(`No rule can let this call run unasked (it asks whatever rules say); approved this once.\n`);
              return approve({});
            }
            output.write(`${colour.success("Saved")} to ${file} (permissions.allow): ${rules.join(", ")}\n`);
            return approve({ always: true });
          } catch (err) {
            output.write(`${colour.failure("Could not save")}: ${(err as Error).message}\n`);
            continue;
          }
        }
        if (answer === "n" || answer === "no") {
          const message = await question("Message for the model (optional): ");
          return message ? { approved: false, message } : { approved: false };
        }
        if ((answer === "e" || answer === "edit") && raw && editor) {
          // The arguments as they stand, pretty, in the person's editor; what they save is checked
          // here, and a mistake is shown with their text kept for the next e.
          const saved = editInEditor(editor, draft ?? `${JSON.stringify(request.args, null, 2)}\n`);
          if ("failed" in saved) {
            output.write(`${colour.failure("Not edited")}: ${saved.failed}; the arguments are as they were.\n`);
            continue;
          }
          draft = saved.text;
          const parsed = argumentsFrom(saved.text);
          if ("error" in parsed) {
            output.write(`${colour.failure("Not used")}: ${parsed.error} e opens your text again.\n`);
            continue;
          }
          if ((await review(parsed.args)) === "run") {
            output.write(`New arguments:\n${summarise(parsed.args)}\n`);
            return { approved: true, modifiedArgs: parsed.args };
          }
          continue;
        }
        if (answer === "e" || answer === "edit") {
          const text = await question("New arguments as JSON: ");
          try {
            const parsed: unknown = JSON.parse(text ?? "");
            if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
              const args = parsed as Record<string, unknown>;
              if ((await review(args)) === "run") return { approved: true, modifiedArgs: args };
              continue;
            }
            output.write("That is not a JSON object.\n");
          } catch (err) {
            output.write(`That is not valid JSON: ${(err as Error).message}\n`);
          }
          continue;
        }
        if (answer === "?") {
          // Written for a model in Markdown: code spans are highlighted rather than shown in backticks.
          const description = terminalSafe(request.description ?? "").replace(/`([^`\n]+)`/g, (_m, code: string) => colour.strong(code));
          output.write(`\n${description}\nArguments:\n${terminalSafe(JSON.stringify(edited ?? request.args, null, 2))}\n`);
          output.write(
            `Keys: y run it once; n refuse (you may say why, for the model); Esc refuse at once` +
              (session
                ? `; a run it, and this very call again, for this session; w the same for a wider rule you type (kept only if it covers this call)`
                : "") +
              (options.saveRules ? "; s run it, and save the narrowest rule that allows it to configuration" : "") +
              `; e edit the arguments as JSON.\n`,
          );
          if (preview) output.write(`Preview:\n${terminalSafe(preview)}\n`);
          continue;
        }
        output.write(`Answer ${keys}.\n`);
      }
    } finally {
      // A paused reader does not keep the process alive between prompts.
      rl?.pause();
    }
  };

  const approver = ((request: ApprovalRequest, signal: AbortSignal) => {
    const turn = queue.then(() => ask(request, signal));
    queue = turn.catch(() => undefined);
    return turn;
  }) as TerminalApprover;
  approver.close = () => rl?.close();
  return approver;
}

/** Arguments a person wrote: a JSON object, or what is wrong with the text. */
function argumentsFrom(text: string): { args: Record<string, unknown> } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { error: `that is not valid JSON (${(err as Error).message}).` };
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return { error: "the arguments must be one JSON object." };
  return { args: parsed as Record<string, unknown> };
}
