import type { Readable, Writable } from "node:stream";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { idFromHead, LineLimit, MAX_STDIO_MESSAGE_BYTES } from "./line-limit.js";
import type { ToolRegistry } from "../../registry/registry.js";
import { createLogger, type Logger } from "../../core/logger.js";
import { ToolRunner, type ToolRunnerOptions } from "../../runtime/runner.js";
import type { ApprovalMode } from "../../runtime/policy.js";
import type { Toolset } from "../../tools/toolsets.js";
import { ElicitationRouter, type ApprovalRoute } from "./elicitation-approver.js";
import { ToolCallService } from "./server-calls.js";
import { StdioWire } from "./stdio-wire.js";
import { assertHttpOptions, type HttpServeOptions } from "./http-options.js";
import { startedUp } from "../../process/started-up.js";
import { prepareTools } from "../../runtime/prepare-tools.js";

/** When configured MCP servers are connected if no client has listed tools by then. */
const MCP_START_AFTER_MS = 1_000;
/**
 * How long after its first tools/list the server prepares tools' first calls: a client lists, then
 * its model takes a turn before calling, and calls that come at once are not kept waiting.
 */
const PREPARE_AFTER_MS = 1_000;

export { assertHttpOptions, type HttpServeOptions } from "./http-options.js";
export { isLoopbackHost } from "../../net/request-guard.js";

export interface McpServeOptions {
  /** Workspace root; default from configuration, else the current directory. */
  workspace?: string;
  /** What is auto-approved; anything else asks the client's person (elicitation) or is rejected. */
  approval?: ApprovalMode;
  /** Configuration file; default tackle.config.json or config.json in the workspace. */
  configFile?: string;
  toolset?: Toolset;
  /** Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio. */
  http?: HttpServeOptions;
  /**
   * Serve this registry instead of opening a session from configuration (library use, tests,
   * benchmarks). The runner is built here, with `runner` options.
   */
  registry?: ToolRegistry;
  runner?: Omit<ToolRunnerOptions, "registry" | "approver" | "approval">;
  /** Streams for stdio serving; default the process's stdin and stdout. */
  stdio?: { input: Readable; output: Writable };
  logger?: Logger;
  /** How long a call waits for the person's answer. Default 10 minutes. */
  approvalTimeoutMs?: number;
  /** The shared store whose desk takes approvals the client cannot ask (opened with a session only). */
  store?: string;
  /** Where approvals go: "auto" (default), "client" or "desk"; see {@link ApprovalRoute}. */
  approvals?: ApprovalRoute;
}

export interface McpServerHandle {
  /** Stops serving and closes the session (MCP servers it started, the audit log). Idempotent. */
  close(): Promise<void>;
  /** Where the HTTP server listens (`http://127.0.0.1:PORT/mcp`); absent on stdio. */
  url?: string;
  /** Settles once serving has ended: stdin closed (stdio) or close() was called. */
  readonly closed: Promise<void>;
}

/**
 * Serves tackle's registry over MCP to clients of both protocol eras (2025 and 2026-07-28): on
 * stdio by default, over Streamable HTTP with `http`. Every call runs through the session's
 * runner; approval asks the calling client's person through elicitation, or is rejected when
 * the client cannot ask. Nothing but protocol is written to stdout.
 */
export async function runMcpServer(options: McpServeOptions = {}): Promise<McpServerHandle> {
  const logger = options.logger ?? createLogger("warn");
  if (options.http) assertHttpOptions(options.http);
  const router = new ElicitationRouter();

  let registry: ToolRegistry;
  let runner: ToolRunner;
  let closeSession: () => Promise<void>;
  let startMcp = () => {};
  if (options.registry) {
    registry = options.registry;
    runner = new ToolRunner({
      logger,
      ...(options.workspace ? { workspace: options.workspace } : {}),
      ...options.runner,
      registry,
      approval: options.approval ?? "safe",
      approver: router.approver,
    });
    closeSession = () => runner.close();
  } else {
    // Loaded only when needed: a library server over its own registry does not pay for (or
    // depend on) every built-in tool group.
    const { openSession } = await import("../../session.js");
    const session = await openSession({
      ...(options.workspace ? { workspace: options.workspace } : {}),
      ...(options.configFile ? { configFile: options.configFile } : {}),
      ...(options.approval ? { approval: options.approval } : {}),
      ...(options.toolset ? { toolset: options.toolset } : {}),
      logger,
      // Clients get the tools that are ready; the others follow with tools/list_changed. Servers
      // are spawned once the first tools/list is answered, so they do not slow it down.
      mcpWaitMs: 0,
      deferMcp: true,
      runner: options.runner ?? {},
      // Calls the client cannot ask about (or all, with --approvals desk) wait at the shared desk.
      desk: {
        ...(options.store !== undefined ? { store: options.store } : {}),
        ...(options.approvalTimeoutMs !== undefined ? { timeoutMs: options.approvalTimeoutMs } : {}),
        approver: (desk) => {
          router.useDesk(desk, options.approvals ?? "auto");
          return router.approver;
        },
      },
    });
    registry = session.registry;
    runner = session.runner;
    closeSession = () => session.close();
    startMcp = () => session.startMcp();
    // A client that never lists still gets them soon.
    setTimeout(startMcp, MCP_START_AFTER_MS).unref();
  }

  let prepareTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  const prepareSoon = () => {
    prepareTimer ??= setTimeout(() => void prepareTools(registry.list(), logger, () => stopped), PREPARE_AFTER_MS);
    prepareTimer.unref();
  };

  const service = new ToolCallService({
    registry,
    runner,
    router,
    logger,
    ...(options.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: options.approvalTimeoutMs } : {}),
    onToolsListed: () => {
      startMcp();
      startedUp();
      prepareSoon();
    },
  });

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let closing: Promise<void> | undefined;
  let stopTransport: () => Promise<void> = async () => {};
  let notifyTransport: () => void = () => {};
  const close = () =>
    (closing ??= (async () => {
      unsubscribe();
      clearTimeout(pending);
      stopped = true;
      clearTimeout(prepareTimer);
      service.close();
      await stopTransport().catch(() => {});
      await closeSession().catch((err: unknown) => logger.warn("closing the session failed", { error: String(err) }));
      resolveClosed();
    })());

  // A burst of registrations (an MCP server reconnecting) becomes one notification.
  let pending: NodeJS.Timeout | undefined;
  const unsubscribe = registry.onChange(() => {
    if (pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      service.notifyToolsChanged();
      notifyTransport();
    }, 20);
    pending.unref();
  });

  try {
    if (options.http) {
      // Loaded only when asked for: a stdio server never pays for node:http and the SDK's web handler.
      const { serveHttp } = await import("./server-http.js");
      const http = await serveHttp(service, options.http, logger);
      service.prepareToolList();
      stopTransport = http.close;
      notifyTransport = http.notifyToolsChanged;
      logger.info(`tackle MCP server listening on ${http.url}`);
      return { url: http.url, close, closed };
    }
    const input = options.stdio?.input ?? process.stdin;
    const output = options.stdio?.output ?? process.stdout;
    if (output === process.stdout) guardStdout();
    // One oversized message is refused with an error; it must not end the connection.
    const limited = input.pipe(
      new LineLimit(MAX_STDIO_MESSAGE_BYTES, (size, head) => {
        const id = idFromHead(head);
        const message =
          `The message is ${(size / 1024 / 1024).toFixed(1)} MB; tackle mcp takes messages up to ` +
          `${MAX_STDIO_MESSAGE_BYTES / 1024 / 1024} MB. Send large content in parts (write_file, then append_file).`;
        logger.warn("refused an oversized MCP message", { bytes: size });
        output.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32600, message } })}\n`);
      }),
    );
    const transport = new StdioWire(limited, output);
    const handle = serveStdio(() => service.createServer({ track: true }), {
      transport,
      onerror: (error) => logger.debug("mcp stdio", { error: error.message }),
    });
    stopTransport = () => handle.close();
    service.prepareToolList();
    // The MCP stdio binding: when the client closes our stdin, we are done.
    const onEnd = () => void close();
    input.once("end", onEnd);
    input.once("close", onEnd);
    return { close, closed };
  } catch (err) {
    await close();
    throw err;
  }
}

let guarded = false;

/**
 * On stdio, stdout is the protocol channel: one stray console.log from a tool or a library would
 * corrupt it. Console output goes to stderr instead for the rest of the process's life.
 */
function guardStdout(): void {
  if (guarded) return;
  guarded = true;
  const toStderr = new console.Console({ stdout: process.stderr, stderr: process.stderr });
  for (const method of [
    "log",
    "info",
    "debug",
    "dir",
    "dirxml",
    "table",
    "trace",
    "group",
    "groupCollapsed",
    "groupEnd",
    "count",
    "countReset",
    "time",
    "timeEnd",
    "timeLog",
  ] as const) {
    (console as unknown as Record<string, unknown>)[method] = (toStderr[method] as (...args: unknown[]) => void).bind(toStderr);
  }
}
