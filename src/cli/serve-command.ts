import { Command, InvalidArgumentError, Option } from "commander";
import type { ApprovalMode } from "../runtime/policy.js";
import type { Toolset } from "../tools/toolsets.js";
import { createLogger } from "../core/logger.js";
import type { ServeHandle } from "../serve/server.js";
import { DEFAULT_SERVE_PORT } from "../serve/defaults.js";
import { approvalOption, configOption, storeOption, toolsetOption, workspaceOption, type SessionFlags } from "./options.js";
import { EXIT } from "./exit-codes.js";
import { portArg, serveUntilClosed, startFailure } from "./server-lifecycle.js";
import { serverToken, tokenNotice } from "./server-token.js";
import { startedUp } from "../process/started-up.js";

interface ServeFlags extends SessionFlags {
  port: number;
  approvalTimeout?: number;
  host?: string;
  token?: string | boolean;
  verbose?: boolean;
  store?: string;
}

const UNIT_MS: Record<string, number> = { "": 1000, s: 1000, m: 60_000, h: 3_600_000 };

/** A duration in milliseconds from `90`, `90s`, `10m` or `1h`. */
function durationArg(value: string): number {
  const match = /^(\d+(?:\.\d+)?)([smh]?)$/.exec(value.trim());
  const ms = match ? Number(match[1]) * UNIT_MS[match[2]!]! : NaN;
  if (!(ms >= 1000 && ms <= 7 * 24 * 3_600_000)) {
    throw new InvalidArgumentError(`Give a duration from 1s to 7 days, such as 90s, 10m or 1h, not "${value}".`);
  }
  return Math.round(ms);
}

/**
 * `tackle serve`: the HTTP API (tools, calls, approvals, server-sent events, metrics) and a web
 * dashboard where a person answers approval requests. The address goes to stderr.
 */
export function serveCommand(): Command {
  return new Command("serve")
    .description("serve tackle's tools over an HTTP API with live events and a web approval queue")
    .option("-p, --port <port>", "port to listen on (0 picks a free one)", portArg, DEFAULT_SERVE_PORT)
    .option("--host <address>", "address to bind (default 127.0.0.1)")
    .addOption(
      new Option("--token <token>", "bearer token every API request must carry (default: a new one, printed)").env("TACKLE_SERVE_TOKEN"),
    )
    .option("--no-token", "require no token: every user of this machine can then use the server")
    .addOption(workspaceOption())
    .addOption(configOption())
    .addOption(toolsetOption())
    .addOption(approvalOption())
    .addOption(storeOption())
    .option(
      "--approval-timeout <duration>",
      "reject an unanswered approval after this long: seconds, or 90s, 10m, 1h (default 10m)",
      durationArg,
    )
    .option("--verbose", "log diagnostics to stderr")
    .action(async (flags: ServeFlags) => {
      let handle: ServeHandle;
      const token = serverToken(flags.token, "TACKLE_SERVE_TOKEN");
      try {
        const { startServe } = await import("../serve/server.js");
        handle = await startServe({
          port: flags.port,
          ...(flags.host ? { host: flags.host } : {}),
          ...(token ? { token } : {}),
          ...(flags.approvalTimeout !== undefined ? { approvalTimeoutMs: flags.approvalTimeout } : {}),
          ...(flags.workspace ? { workspace: flags.workspace } : {}),
          ...(flags.store ? { store: flags.store } : {}),
          ...(flags.config ? { configFile: flags.config } : {}),
          ...(flags.toolset ? { toolset: flags.toolset as Toolset } : {}),
          ...(flags.approval ? { approval: flags.approval as ApprovalMode } : {}),
          logger: createLogger(flags.verbose ? "debug" : "warn"),
        });
      } catch (err) {
        process.stderr.write(startFailure(err, "--port", flags.port));
        process.exitCode = EXIT.usage;
        return;
      }
      const url = handle.url.replace(/\/$/, "");
      // The token first: a client that waits for the address has it by then.
      process.stderr.write(tokenNotice(url, token, "dashboard"));
      process.stderr.write(`tackle: serving on ${url}\n`);
      startedUp();
      await serveUntilClosed(handle);
    });
}
