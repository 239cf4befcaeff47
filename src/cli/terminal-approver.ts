import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { Approver, ApprovalRequest, ApprovalResponse } from "../runtime/approver.js";

export interface TerminalApproverOptions {
  input?: Readable;
  output?: Writable;
}

const SHORT_VALUE = 200;

function summarise(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([k, v]) => {
      const text = typeof v === "string" ? v : JSON.stringify(v);
      const oneLine = text.length > SHORT_VALUE ? `${text.slice(0, SHORT_VALUE)}… (${text.length} characters)` : text;
      return `    ${k}: ${oneLine.replace(/\n/g, "\\n")}`;
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

  const ask = async (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse> => {
    const question = async (text: string): Promise<string | undefined> => {
      output.write(text);
      return (await nextLine(signal))?.trim();
    };
    try {
      output.write(`\ntackle: ${request.tool} wants to run (${request.effect}): ${request.reason}\n${summarise(request.args)}\n`);
      if (request.preview) output.write(`${request.preview.split("\n").slice(0, 40).join("\n")}\n`);
      for (;;) {
        const answer = (await question("Approve? [y]es / [n]o / [a]lways / [e]dit / [?] more: "))?.toLowerCase();
        if (answer === undefined) return { approved: false, message: "no answer came from the terminal", automatic: true };
        if (answer === "y" || answer === "yes") return { approved: true };
        if (answer === "a" || answer === "always") return { approved: true, always: true };
        if (answer === "n" || answer === "no") {
          const message = await question("Message for the model (optional): ");
          return message ? { approved: false, message } : { approved: false };
        }
        if (answer === "e" || answer === "edit") {
          const text = await question("New arguments as JSON: ");
          try {
            const parsed: unknown = JSON.parse(text ?? "");
            if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
              return { approved: true, modifiedArgs: parsed as Record<string, unknown> };
            }
            output.write("That is not a JSON object.\n");
          } catch (err) {
            output.write(`That is not valid JSON: ${(err as Error).message}\n`);
          }
          continue;
        }
        if (answer === "?") {
          output.write(`\n${request.description ?? ""}\nArguments:\n${JSON.stringify(request.args, null, 2)}\n`);
          if (request.preview) output.write(`Preview:\n${request.preview}\n`);
          continue;
        }
        output.write("Answer y, n, a, e or ?.\n");
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
