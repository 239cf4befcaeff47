import { readFileSync } from "node:fs";
import path from "node:path";
import { Command } from "commander";
import type { Toolset } from "../tools/toolsets.js";
import type { ApprovalMode } from "../runtime/policy.js";
import type { ToolOutcome } from "../core/result.js";
import { type ApprovalRequest, type Approver } from "../runtime/approver.js";
import { looksLikeDiff, palette } from "./colour.js";
import { personMessage, type CallStory } from "./person-messages.js";
import { rulesThatAllow } from "./narrowest-rule.js";
import { addRule, configFileFor } from "./config-rules.js";
import { terminalSafe } from "../core/visible.js";
import { approvalOption, configOption, toolsetOption, workspaceOption, type SessionFlags } from "./options.js";
import { EXIT } from "./exit-codes.js";
import type { SavedRules } from "./terminal-approver.js";
import { parseKeyValueArgs } from "./key-value-args.js";

/** Exit code for an outcome: 0 success, 1 tool error, 2 unknown tool or invalid arguments, 3 rejected. */
export function exitCodeOf(outcome: ToolOutcome): number {
  if (outcome.status === "success") return EXIT.ok;
  if (outcome.status === "rejected") return EXIT.rejected;
  if (outcome.error?.code === "UNKNOWN_TOOL" || outcome.error?.code === "INVALID_ARGS") return EXIT.usage;
  return EXIT.toolError;
}

function readArgs(text: string | undefined): string {
  if (text === undefined) return "{}";
  if (text === "-") return readFileSync(0, "utf8");
  if (text.startsWith("@")) return readFileSync(text.slice(1), "utf8");
  return text;
}

/** What a tool said after output it streamed (`metadata.notes`): files moved aside, the sandbox's part. */
function notesOf(metadata: Record<string, unknown> | undefined): string[] {
  const notes = metadata?.["notes"];
  return Array.isArray(notes) ? notes.filter((n): n is string => typeof n === "string") : [];
}

/** How a command ended, when not cleanly: "exit code 3", "stopped by SIGKILL". */
function commandEnding(structured: unknown): string | undefined {
  if (!structured || typeof structured !== "object") return undefined;
  const { exitCode, signal } = structured as { exitCode?: unknown; signal?: unknown };
  if (typeof signal === "string") return `stopped by ${signal}`;
  return typeof exitCode === "number" && exitCode !== 0 ? `exit code ${exitCode}` : undefined;
}

/** `tackle call <tool> --args JSON`: one call, with the terminal as approver when there is one. */
export function callCommand(): Command {
  return new Command("call")
    .description("call one tool")
    .argument("<tool>", "tool name")
    .argument(
      "[key=value...]",
      "arguments as name=value pairs, read by the parameter's type (name=@FILE reads a file), or as one JSON object",
    )
    .option("-a, --args <json>", "arguments as a JSON object; @FILE reads a file, - reads standard input", "{}")
    .option("--json", "print the whole outcome as JSON")
    .addOption(workspaceOption())
    .addOption(configOption())
    .addOption(toolsetOption())
    .addOption(approvalOption())
    .addHelpText(
      "after",
      `
Examples:
  tackle call read_file path=README.md limit=5
  tackle call grep pattern=TODO path=src --json
  tackle call write_file --args '{"path":"notes.txt","content":"hi"}'
  echo '{"command":"ls"}' | tackle call shell --args -`,
    )
    .action(async (name: string, pairs: string[], flags: SessionFlags & { args?: string; json?: boolean }) => {
      const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
      const out = palette(process.stdout);
      const err = palette(process.stderr);
      const story: CallStory = {};
      let raw: string;
      try {
        raw = readArgs(flags.args);
      } catch (e) {
        process.stderr.write(`tackle: cannot read arguments: ${(e as Error).message}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      const { openSession } = await import("../session.js");
      let saveRules: ((request: ApprovalRequest) => Promise<SavedRules>) | undefined;
      let allowingRules: ((request: ApprovalRequest) => Promise<string[]>) | undefined;
      let modeNow = (): string => flags.approval ?? "safe";
      const asking: Approver & { close?: () => void } = interactive
        ? (await import("./terminal-approver.js")).terminalApprover({ saveRules: (request) => saveRules!(request), oneCall: true })
        : async (request) => {
            // The exact rules that would let it run, so the hint can be followed as it stands.
            story.rules = await allowingRules!(request);
            const rules = story.rules.map((r) => JSON.stringify(r)).join(", ");
            story.modeAll = modeNow() === "all";
            const how = story.modeAll
              ? rules
                ? `even in approval mode all it needs a person, or permissions.allow: [${rules}] in tackle.config.json`
                : "even in approval mode all it needs a person: run it at a terminal to approve it"
              : rules
                ? `run it with --approval all, or allow it in tackle.config.json with permissions.allow: [${rules}]`
                : "no allow rule covers it, so only --approval all runs it";
            return { approved: false, automatic: true, message: `it needs approval and no terminal is attached to ask; ${how}` };
          };
      // Remembers why a person was wanted, to explain a rejection in the person's terms.
      const approver: Approver = async (request, signal) => {
        story.askedBecause = request.reason;
        story.nobodyToAsk = !interactive;
        return asking(request, signal);
      };
      const session = await openSession({
        ...(flags.workspace ? { workspace: flags.workspace } : {}),
        ...(flags.config ? { configFile: flags.config } : {}),
        ...(flags.toolset ? { toolset: flags.toolset as Toolset } : {}),
        ...(flags.approval ? { approval: flags.approval as ApprovalMode } : {}),
        // One tool is called: the other built-in groups' code is not even loaded, and MCP servers
        // are started only when the tool is not a built-in one (then the call waits for them).
        only: [name],
        deferMcp: true,
        readsAcrossProcesses: true,
        runner: { approver },
      });
      modeNow = () => session.runner.approval;
      allowingRules = async (request) => {
        const found = session.registry.get(request.tool);
        if (!found) return [];
        const names = session.registry.namesOf(request.tool);
        return rulesThatAllow(found, request.tool, request.args, session.runner, names, session.loaded.config.permissions);
      };
      saveRules = async (request) => {
        const rules = await allowingRules!(request);
        const file = configFileFor(session.loaded);
        for (const rule of rules) addRule(file, "allow", rule);
        return { file: path.relative(process.cwd(), file) || file, rules };
      };
      session.runner.on("tool.approval", (event) => {
        if (event.type === "tool.approval" && !event.approved && event.approvedBy === "policy" && !story.nobodyToAsk) {
          story.deniedBecause = event.message;
        }
      });
      // Progress is for a person watching: one status line, redrawn in place at a terminal (never
      // when piped), taken away before output is printed and at the end. It is drawn only where a
      // line of output has ended, so it never overwrites half a line.
      const status = { shown: false, lineStart: true };
      const clearStatus = () => {
        if (status.shown) process.stderr.write("\r\u001b[2K");
        status.shown = false;
      };
      if (!flags.json && process.stderr.isTTY) {
        session.runner.on("tool.progress", (event) => {
          if (event.type !== "tool.progress" || !status.lineStart) return;
          const share = event.total ? ` ${Math.round((event.progress / event.total) * 100)}%` : "";
          const width = Math.max(20, (process.stderr.columns || 80) - 1);
          const line = `… ${event.message ?? "working"}${share}`.slice(0, width);
          process.stderr.write(`\r\u001b[2K${err.dim(line)}`);
          status.shown = true;
        });
      }
      const controller = new AbortController();
      let interrupted = false;
      // The first Ctrl-C (or SIGTERM) stops the call and keeps what it printed; a second one leaves at once.
      const onSignal = () => {
        if (interrupted) process.exit(EXIT.interrupted);
        interrupted = true;
        controller.abort();
      };
      const stopSignals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
      for (const signal of stopSignals) process.on(signal, onSignal);
      try {
        let args: unknown = raw;
        if (pairs.length > 0) {
          // key=value pairs are read by the tool's schema: an MCP tool's server must have answered.
          await session.runner.waitForTools([name]);
          const tool = session.registry.get(name);
          try {
            const fromJson = JSON.parse(raw) as Record<string, unknown>;
            args = { ...fromJson, ...parseKeyValueArgs(pairs, tool?.inputSchema ?? {}, (p) => readFileSync(p, "utf8")) };
          } catch (e) {
            process.stderr.write(`tackle: ${terminalSafe((e as Error).message)}\n`);
            process.exitCode = EXIT.usage;
            return;
          }
        }
        // Output goes to the person as it arrives; then the result need not be printed again. At a
        // terminal, what a tool printed is shown, never obeyed: no escape sequence gets through.
        const shownOut = process.stdout.isTTY ? terminalSafe : (text: string) => text;
        const shownErr = process.stderr.isTTY ? terminalSafe : (text: string) => text;
        let streamed = "";
        const outcome = await session.runner.run(
          { name, args },
          {
            signal: controller.signal,
            ...(flags.json
              ? {}
              : {
                  onOutput: (chunk: string) => {
                    clearStatus();
                    streamed += chunk;
                    process.stdout.write(shownOut(chunk));
                    status.lineStart = chunk.endsWith("\n");
                  },
                }),
          },
        );
        clearStatus();
        if (streamed !== "" && !streamed.endsWith("\n")) process.stdout.write("\n");
        if (
          !flags.json &&
          outcome.status === "success" &&
          session.registry.canonicalName(name) === "shell_background" &&
          outcome.content.startsWith("Started ")
        ) {
          // The job belongs to this process: a person must know the command stays until the job ends.
          process.stderr.write(
            `${err.warning(
              "tackle: background jobs live as long as the process that serves them, so this command waits for the job to end " +
                "(Ctrl-C stops both). Start jobs through tackle mcp or tackle serve to go on while they run.",
            )}\n`,
          );
        }
        if (flags.json) process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
        else if (outcome.status === "success") {
          if (streamed === "") {
            const text = shownOut(outcome.displayContent ?? outcome.content);
            const shown = looksLikeDiff(text) ? out.diff(text) : text;
            process.stdout.write(shown.endsWith("\n") ? shown : `${shown}\n`);
          } else {
            // The streamed output lacks the ending the result reports ("[exit code 3]").
            const ended = commandEnding(outcome.structured);
            if (ended) process.stderr.write(`${err.warning(ended)}\n`);
            for (const note of notesOf(outcome.metadata)) process.stderr.write(`${err.warning(shownErr(note))}\n`);
          }
        } else {
          story.streamed = streamed !== "";
          // Made safe before tackle's own colours are added.
          const safe = {
            ...outcome,
            content: shownErr(outcome.content),
            ...(outcome.error ? { error: { ...outcome.error, message: shownErr(outcome.error.message) } } : {}),
          };
          process.stderr.write(`${personMessage(safe, story, err)}\n`);
        }
        process.exitCode = interrupted && outcome.error?.code === "CANCELLED" ? EXIT.interrupted : exitCodeOf(outcome);
      } finally {
        for (const signal of stopSignals) process.off(signal, onSignal);
        asking.close?.();
        await session.close();
      }
    });
}
