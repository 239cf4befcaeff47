import { Command } from "commander";
import type { Toolset } from "../tools/toolsets.js";
import { configOption, toolsetOption, workspaceOption, type SessionFlags } from "./options.js";

/** `tackle tools [--json]`: every registered tool. */
export function toolsCommand(): Command {
  return new Command("tools")
    .description("list every registered tool")
    .option("--json", "print an array of { name, description, inputSchema, outputSchema?, effect }")
    .addOption(workspaceOption())
    .addOption(configOption())
    .addOption(toolsetOption())
    .action(async (flags: SessionFlags & { json?: boolean }) => {
      // Loaded when the command runs, so `tackle --help` and `--version` pay nothing for it.
      const { openSession } = await import("../session.js");
      const session = await openSession({
        ...(flags.workspace ? { workspace: flags.workspace } : {}),
        ...(flags.config ? { configFile: flags.config } : {}),
        ...(flags.toolset ? { toolset: flags.toolset as Toolset } : {}),
      });
      try {
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
        for (const t of tools) {
          const sentence = /^.*?[.!?](?=\s|$)/s.exec(t.description.split("\n")[0]!)?.[0] ?? t.description.split("\n")[0]!;
          const summary = sentence.length > 100 ? `${sentence.slice(0, 99)}…` : sentence;
          process.stdout.write(`${t.name.padEnd(width)}  ${t.effect.padEnd(11)}  ${summary}\n`);
        }
        if (tools.length === 0) process.stdout.write("No tools are registered.\n");
      } finally {
        await session.close();
      }
    });
}
