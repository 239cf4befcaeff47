import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { toolsCommand } from "./tools-command.js";
import { callCommand } from "./call-command.js";
import { mcpCommand } from "./mcp-command.js";
import { serveCommand } from "./serve-command.js";
import { initCommand } from "./init-command.js";
import { EXIT } from "./exit-codes.js";

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

/** Builds the `tackle` command. */
export function program(): Command {
  const root = new Command("tackle")
    .description("tackle: tools for AI agents. List them, call them, serve them over MCP.")
    .version(version())
    .showHelpAfterError("(run with --help for usage)")
    .addCommand(toolsCommand())
    .addCommand(callCommand())
    .addCommand(mcpCommand())
    .addCommand(serveCommand())
    .addCommand(initCommand());
  for (const cmd of [root, ...root.commands]) cmd.exitOverride();
  return root;
}

/** Runs the command line and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  try {
    await program().parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    process.stderr.write(`tackle: ${(err as Error).message}\n`);
    return EXIT.usage;
  }
}
