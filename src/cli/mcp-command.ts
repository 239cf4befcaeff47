import { Command, Option } from "commander";
import type { ApprovalMode } from "../runtime/policy.js";
import type { Toolset } from "../tools/toolsets.js";
import { createLogger } from "../core/logger.js";
import { approvalOption, configOption, storeOption, toolsetOption, workspaceOption, type SessionFlags } from "./options.js";
import { APPROVAL_ROUTES, type ApprovalRoute } from "../mcp/server/elicitation-approver.js";
import { EXIT } from "./exit-codes.js";
import { portArg, serveUntilClosed, startFailure } from "./server-lifecycle.js";
import { serverToken, tokenNotice } from "./server-token.js";

interface McpFlags extends SessionFlags {
  http?: number;
  host?: string;
  token?: string | boolean;
  verbose?: boolean;
  store?: string;
  approvals?: ApprovalRoute;
}

/**
 * `tackle mcp`: serves every registered tool to MCP clients, on stdio (until stdin closes) or
 * Streamable HTTP at http://127.0.0.1:PORT/mcp. Only protocol goes to stdout; logs go to stderr.
 */
export function mcpCommand(): Command {
  return new Command("mcp")
    .description("serve tackle's tools as an MCP server (stdio, or Streamable HTTP with --http)")
    .addOption(workspaceOption())
    .addOption(configOption())
    .addOption(toolsetOption())
    .addOption(approvalOption())
    .addOption(storeOption())
    .addOption(
      new Option(
        "--approvals <route>",
        "who answers calls that need a person: auto (the client if it can ask, else the desk when `tackle serve` watches it), client, or desk",
      ).choices(APPROVAL_ROUTES as unknown as string[]),
    )
    .option("--http <port>", "serve Streamable HTTP on this port (0 picks a free one) instead of stdio", portArg)
    .option("--host <address>", "address to bind with --http (default 127.0.0.1)")
    .addOption(
      new Option("--token <token>", "bearer token every HTTP request must carry (default with --http: a new one, printed)").env(
        "TACKLE_MCP_TOKEN",
      ),
    )
    .option("--no-token", "with --http, require no token: every user of this machine can then call the tools")
    .option("--verbose", "log diagnostics to stderr")
    .addHelpText(
      "after",
      `
Examples:
  tackle mcp
  tackle mcp --toolset coding --approval safe
  tackle mcp --http 8765
  tackle mcp --approvals desk          # every approval waits on the dashboard of \`tackle serve\`
  TACKLE_MCP_TOKEN="$(openssl rand -hex 16)" tackle mcp --http 8765`,
    )
    .action(async (flags: McpFlags) => {
      const logger = createLogger(flags.verbose ? "debug" : "warn");
      const port = flags.http;
      if (port === undefined && (flags.host || typeof flags.token === "string" || flags.token === false)) {
        process.stderr.write("tackle: --host, --token and --no-token apply only with --http\n");
        process.exitCode = EXIT.usage;
        return;
      }
      let handle;
      const token = port === undefined ? undefined : serverToken(flags.token, "TACKLE_MCP_TOKEN");
      try {
        const { runMcpServer } = await import("../mcp/server/server.js");
        handle = await runMcpServer({
          ...(flags.workspace ? { workspace: flags.workspace } : {}),
          ...(flags.store ? { store: flags.store } : {}),
          ...(flags.approvals ? { approvals: flags.approvals } : {}),
          ...(flags.config ? { configFile: flags.config } : {}),
          ...(flags.toolset ? { toolset: flags.toolset as Toolset } : {}),
          ...(flags.approval ? { approval: flags.approval as ApprovalMode } : {}),
          ...(port !== undefined ? { http: { port, ...(flags.host ? { host: flags.host } : {}), ...(token ? { token } : {}) } } : {}),
          logger,
        });
      } catch (err) {
        process.stderr.write(startFailure(err, "--http", port));
        process.exitCode = EXIT.usage;
        return;
      }
      // Typed at a terminal, a stdio server would look like a blank screen.
      if (!handle.url && process.stdin.isTTY) {
        process.stderr.write(
          "tackle: MCP server on stdin/stdout, for an MCP client to start; Ctrl-D or Ctrl-C stops it. `tackle tools` lists the tools.\n",
        );
      }
      // Scripts read the address from stderr (stdout may be the protocol channel on stdio).
      if (handle.url) {
        process.stderr.write(tokenNotice(new URL(handle.url).origin, token, "mcp"));
        process.stderr.write(`tackle: MCP server listening on ${handle.url}\n`);
      }
      await serveUntilClosed(handle);
    });
}
