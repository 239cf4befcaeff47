import { readFileSync } from "node:fs";
import { Command } from "commander";
import type { Toolset } from "../tools/toolsets.js";
import type { ApprovalMode } from "../runtime/policy.js";
import type { ToolOutcome } from "../core/result.js";
import { rejectingApprover, type Approver } from "../runtime/approver.js";
import { approvalOption, configOption, toolsetOption, workspaceOption, type SessionFlags } from "./options.js";
import { EXIT } from "./exit-codes.js";
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

/** `tackle call <tool> --args JSON`: one call, with the terminal as approver when there is one. */
export function callCommand(): Command {
  return new Command("call")
    .description("call one tool")
    .argument("<tool>", "tool name")
    .argument("[key=value...]", "arguments as name=value pairs, read by the parameter's type (name=@FILE reads a file)")
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
      const approver: Approver & { close?: () => void } = interactive
        ? (await import("./terminal-approver.js")).terminalApprover()
        : rejectingApprover(
            "it needs approval and no terminal is attached to ask; run it with --approval all, or allow it in tackle.config.json (permissions.allow)",
          );
      let raw: string;
      try {
        raw = readArgs(flags.args);
      } catch (err) {
        process.stderr.write(`tackle: cannot read arguments: ${(err as Error).message}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      const { openSession } = await import("../session.js");
      const session = await openSession({
        ...(flags.workspace ? { workspace: flags.workspace } : {}),
        ...(flags.config ? { configFile: flags.config } : {}),
        ...(flags.toolset ? { toolset: flags.toolset as Toolset } : {}),
        ...(flags.approval ? { approval: flags.approval as ApprovalMode } : {}),
        runner: { approver },
      });
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.once("SIGINT", onSignal);
      try {
        const streaming = !flags.json && process.stderr.isTTY;
        let args: unknown = raw;
        if (pairs.length > 0) {
          const tool = session.registry.get(name);
          try {
            const fromJson = JSON.parse(raw) as Record<string, unknown>;
            args = { ...fromJson, ...parseKeyValueArgs(pairs, tool?.inputSchema ?? {}, (p) => readFileSync(p, "utf8")) };
          } catch (err) {
            process.stderr.write(`tackle: ${(err as Error).message}\n`);
            process.exitCode = EXIT.usage;
            return;
          }
        }
        const outcome = await session.runner.run(
          { name, args },
          { signal: controller.signal, ...(streaming ? { onOutput: (chunk: string) => process.stderr.write(chunk) } : {}) },
        );
        if (flags.json) process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
        else if (outcome.status === "success")
          process.stdout.write(outcome.content.endsWith("\n") ? outcome.content : `${outcome.content}\n`);
        else process.stderr.write(`${outcome.content}\n`);
        process.exitCode = exitCodeOf(outcome);
      } finally {
        process.off("SIGINT", onSignal);
        approver.close?.();
        await session.close();
      }
    });
}
