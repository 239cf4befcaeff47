import { Command } from "commander";
import { waitAtMost } from "../core/wait-at-most.js";
import type { Session } from "../session.js";
import type { Toolset } from "../tools/toolsets.js";
import { EXIT } from "./exit-codes.js";
import { palette } from "./colour.js";
import { terminalSafe } from "../core/visible.js";
import { configOption, toolsetOption, workspaceOption, type SessionFlags } from "./options.js";

/** `tackle tools [tool] [--json]`: every registered tool, or one described in full. */
export function toolsCommand(): Command {
  return new Command("tools")
    .description("list every registered tool, or describe one")
    .argument("[tool]", "a tool to describe: parameters, types, defaults, effect and an example call")
    .option("--json", "print an array of { name, description, inputSchema, outputSchema?, effect }")
    .addOption(workspaceOption())
    .addOption(configOption())
    .addOption(toolsetOption())
    .addHelpText(
      "after",
      `
Examples:
  tackle tools
  tackle tools read_file
  tackle tools --toolset coding
  tackle tools --json | jq '.[].name'`,
    )
    .action(async (one: string | undefined, flags: SessionFlags & { json?: boolean }) => {
      // Loaded when the command runs, so `tackle --help` and `--version` pay nothing for it.
      const { openSession } = await import("../session.js");
      const session = await openSession({
        ...(flags.workspace ? { workspace: flags.workspace } : {}),
        ...(flags.config ? { configFile: flags.config } : {}),
        ...(flags.toolset ? { toolset: flags.toolset as Toolset } : {}),
      });
      try {
        if (one !== undefined) await session.runner.waitForTools([one]);
        else await waitAtMost(session.mcpReady, session.loaded.config.mcpWaitMs ?? LIST_WAIT_MS);
        if (one !== undefined) {
          const tool = session.registry.get(one);
          if (!tool) {
            const near = session.registry.suggest(one);
            const hint = near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : " Run tackle tools to list them.";
            process.stderr.write(`tackle: there is no tool named "${one}".${hint}\n`);
            process.exitCode = EXIT.usage;
            return;
          }
          const { describeTool, describeToolJson } = await import("./tool-help.js");
          // An MCP server's names and descriptions are shown, never obeyed (JSON escapes them itself).
          process.stdout.write(flags.json ? `${JSON.stringify(describeToolJson(tool), null, 2)}\n` : terminalSafe(describeTool(tool)));
          return;
        }
        const tools = session.registry.list();
        if (flags.json) {
          const list = tools.map((t) => ({
            name: t.name,
            description: t.description,
            inputSchema: t.inputSchema,
            ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
            effect: t.effect,
          }));
          process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
          return;
        }
        const width = Math.max(...tools.map((t) => t.name.length), 4);
        const colour = palette(process.stdout);
        // What a call may do, at a glance: reads are harmless, the rest need care.
        const effect = (e: string) => (e === "read" ? colour.success : e === "destructive" ? colour.failure : colour.warning)(e.padEnd(11));
        for (const t of tools) {
          const sentence = /^.*?[.!?](?=\s|$)/s.exec(t.description.split("\n")[0]!)?.[0] ?? t.description.split("\n")[0]!;
          const summary = sentence.length > 100 ? `${sentence.slice(0, 99)}…` : sentence;
          process.stdout.write(`${colour.strong(terminalSafe(t.name).padEnd(width))}  ${effect(t.effect)}  ${terminalSafe(summary)}\n`);
        }
        if (tools.length === 0) process.stdout.write("No tools are registered.\n");
        stillStarting(session);
      } finally {
        await session.close();
      }
    });
}

/** How long the list waits for MCP servers (configuration's `mcpWaitMs` when set): long enough for most, never for one that hangs. */
const LIST_WAIT_MS = 2_000;

/** Names the servers whose tools are missing from the list because they had not answered yet. */
function stillStarting(session: Session): void {
  const waited = (session.loaded.config.mcpWaitMs ?? LIST_WAIT_MS) / 1000;
  for (const server of session.mcp?.status() ?? []) {
    if (server.state !== "connecting") continue;
    process.stderr.write(
      `tackle: MCP server "${server.name}" is still starting after ${waited} s; its tools are not listed. ` +
        `Calls to them wait for it (tackle call ${server.name}__TOOL); set mcpWaitMs in the configuration to wait longer here.\n`,
    );
  }
}
