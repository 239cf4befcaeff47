import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { toolsCommand } from "./tools-command.js";
import { callCommand } from "./call-command.js";
import { mcpCommand } from "./mcp-command.js";
import { serveCommand } from "./serve-command.js";
import { initCommand } from "./init-command.js";
import { completionCommand } from "./completion-command.js";
import { rulesCommand } from "./rules-command.js";
import { undoCommands } from "./undo-command.js";
import { loginCommands } from "./login-command.js";
import { terminalSafe } from "../core/visible.js";
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
    .addCommand(initCommand())
    .addCommand(rulesCommand())
    .addCommand(completionCommand())
    .addHelpText(
      "after",
      `
Examples:
  tackle init
  tackle tools
  tackle tools read_file
  tackle call read_file path=README.md limit=5
  tackle mcp --toolset coding`,
    );
  for (const command of [...undoCommands(), ...loginCommands()]) root.addCommand(command);
  // serve's own file belongs to the server; its examples are added here so every command has some.
  root.commands
    .find((c) => c.name() === "serve")
    ?.addHelpText("after", "\nExamples:\n  tackle serve\n  tackle serve --port 0 --approval safe");
  for (const cmd of [root, ...root.commands, ...root.commands.flatMap((c) => c.commands)]) cmd.exitOverride();
  return root;
}

const SESSION_FLAGS = new Set(["-w", "--workspace", "-c", "--config", "--toolset"]);

/**
 * `tackle call <tool> --help` describes that tool rather than `call` itself: the person asking
 * has named the tool, so its parameters are what they need. Rewritten as `tackle tools <tool>`,
 * keeping the flags that choose which registry the tool comes from.
 */
export function toolHelpArgv(argv: readonly string[]): string[] | undefined {
  const [node = "node", script = "tackle", command, tool, ...rest] = argv;
  if (command !== "call" || !tool || tool.startsWith("-")) return undefined;
  if (!rest.some((a) => a === "--help" || a === "-h")) return undefined;
  const kept: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const flag = arg.split("=")[0]!;
    if (!SESSION_FLAGS.has(flag)) continue;
    kept.push(arg);
    if (!arg.includes("=") && i + 1 < rest.length) kept.push(rest[++i]!);
  }
  return [node, script, "tools", tool, ...kept];
}

/** Runs the command line and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  try {
    const asked = toolHelpArgv(argv);
    await program().parseAsync(asked ?? argv);
    if (asked && !process.exitCode) process.stdout.write(`\nOptions for calling it: tackle call --help\n`);
    return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    process.stderr.write(`tackle: ${terminalSafe((err as Error).message)}\n`);
    return EXIT.usage;
  }
}
