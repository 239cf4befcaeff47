import { Command } from "commander";
import { TOOLSET_NAMES, type Toolset } from "../tools/toolsets.js";
import { configOption, workspaceOption, type SessionFlags } from "./options.js";

const SHELLS = ["bash", "zsh", "fish"] as const;

/** `tackle completion bash|zsh|fish`: a completion script for the shell, printed on stdout. */
export function completionCommand(): Command {
  return new Command("completion")
    .description("print a shell completion script (bash, zsh or fish)")
    .argument("<shell>", `one of ${SHELLS.join(", ")}`)
    .addOption(workspaceOption())
    .addOption(configOption())
    .addHelpText(
      "after",
      `
Tool names come from the workspace's registry when the script is made; make it again after adding tools.

Examples:
  source <(tackle completion bash)
  tackle completion bash > ~/.local/share/bash-completion/completions/tackle
  tackle completion zsh > "\${fpath[1]}/_tackle"
  tackle completion fish > ~/.config/fish/completions/tackle.fish`,
    )
    .action(async (shell: string, flags: SessionFlags, cmd: Command) => {
      if (!(SHELLS as readonly string[]).includes(shell)) {
        process.stderr.write(`tackle: no completion for "${shell}"; choose ${SHELLS.join(", ")}.\n`);
        process.exitCode = 2;
        return;
      }
      const { openSession } = await import("../session.js");
      const { completionSpec, bashCompletion, zshCompletion, fishCompletion } = await import("./completion.js");
      // Every toolset's tools, so `--toolset coding` finds `edit`; MCP servers are not started for this.
      const tools: Record<string, string[]> = {};
      for (const toolset of TOOLSET_NAMES) {
        const session = await openSession({
          ...(flags.workspace ? { workspace: flags.workspace } : {}),
          ...(flags.config ? { configFile: flags.config } : {}),
          toolset: toolset as Toolset,
          mcp: false,
        });
        try {
          for (const t of session.registry.list()) tools[t.name] ??= Object.keys((t.inputSchema.properties ?? {}) as object);
        } finally {
          await session.close();
        }
      }
      const spec = completionSpec(cmd.parent ?? cmd, tools);
      const script = shell === "bash" ? bashCompletion(spec) : shell === "zsh" ? zshCompletion(spec) : fishCompletion(spec);
      process.stdout.write(script);
    });
}
