import { Command } from "commander";
import { configOf, configOption, workspaceOption, type SessionFlags } from "./options.js";
import { EXIT } from "./exit-codes.js";
import { oneLine, terminalSafe } from "../core/visible.js";

// The MCP SDK's client (OAuth included) loads only for these commands, not at every start-up.
const oauth = () => import("../mcp/client/oauth.js");

/** The address of a configured remote MCP server, or why there is none. */
async function remoteServer(name: string, flags: SessionFlags): Promise<URL> {
  const { resolveServer } = await import("../mcp/client/client-config.js");
  const loaded = configOf(flags);
  const servers = loaded.config.mcpServers ?? {};
  const raw = servers[name];
  if (raw === undefined) {
    const names = Object.keys(servers);
    throw new Error(`There is no MCP server "${name}" in the configuration.${names.length ? ` Configured: ${names.join(", ")}.` : ""}`);
  }
  const resolved = resolveServer(name, raw, { baseDir: loaded.workspace, vars: loaded.env });
  if (resolved.transport === "stdio") throw new Error(`"${name}" is a local (stdio) server; only remote servers (a url) sign in.`);
  return resolved.url;
}

/** `tackle login SERVER` and `tackle logout SERVER`: OAuth sign-in to remote MCP servers. */
export function loginCommands(): Command[] {
  const signIn = new Command("login")
    .description("sign in to a remote MCP server that asks for OAuth; the tokens are kept for later sessions")
    .argument("<server>", "the server's name in mcpServers")
    .addOption(workspaceOption())
    .addOption(configOption())
    .addHelpText(
      "after",
      `
The authorization page opens in $BROWSER (or xdg-open), and its address is printed too. The tokens
go to ~/.config/tackle/mcp-oauth (readable only by you); sessions send them and refresh them.

Examples:
  tackle login linear
  tackle logout linear`,
    )
    .action(async (name: string, flags: SessionFlags) => {
      try {
        const url = await remoteServer(name, flags);
        const { login, loginFile } = await oauth();
        await login(name, url);
        process.stdout.write(`Signed in to "${name}"; the tokens are in ${loginFile(name, url)}.\n`);
      } catch (err) {
        // The authorization server words part of this: shown, never obeyed by the terminal.
        process.stderr.write(`tackle: signing in to "${oneLine(name)}" failed: ${terminalSafe((err as Error).message)}\n`);
        process.exitCode = EXIT.toolError;
      }
    });
  const signOut = new Command("logout")
    .description("forget the tokens of a remote MCP server")
    .argument("<server>", "the server's name in mcpServers")
    .addOption(workspaceOption())
    .addOption(configOption())
    .addHelpText("after", "\nExamples:\n  tackle logout linear")
    .action(async (name: string, flags: SessionFlags) => {
      try {
        const url = await remoteServer(name, flags);
        const { logout } = await oauth();
        process.stdout.write(logout(name, url) ? `Signed out of "${name}".\n` : `There was no sign-in for "${name}".\n`);
      } catch (err) {
        process.stderr.write(`tackle: ${terminalSafe((err as Error).message)}\n`);
        process.exitCode = EXIT.usage;
      }
    });
  return [signIn, signOut];
}
