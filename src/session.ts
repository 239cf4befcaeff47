import os from "node:os";
import path from "node:path";
import type { ToolRegistry } from "./registry/registry.js";
import { createLogger, type Logger } from "./core/logger.js";
import { waitAtMost } from "./core/wait-at-most.js";
import { loadConfig, type LoadedConfig } from "./config/config.js";
import { dropRelativePathEntries } from "./process/safe-path.js";
import { configuredPolicy } from "./runtime/configured-policy.js";
import { createRegistry } from "./tools/builtin.js";
import type { Toolset } from "./tools/toolsets.js";
import { ReadLedger } from "./runtime/read-ledger.js";
import { Hooks } from "./runtime/hooks.js";
import { ChangeJournal } from "./workspace/change-journal.js";
import { Workspace } from "./workspace/workspace.js";
import { ToolRunner, type ToolRunnerOptions } from "./runtime/runner.js";
import { parseRule } from "./runtime/rules.js";
import { unknownRuleTool } from "./tools/rule-tool-names.js";
import type { ApprovalMode } from "./runtime/policy.js";
import type { McpManager } from "./mcp/client/manager.js";
import type { SearchProvider, SpecSearchProvider } from "./tools/web/search-provider.js";
import type { Approver } from "./runtime/approver.js";
import { Desk, type DeskEvent } from "./store/desk.js";
import { EventRelay } from "./store/event-relay.js";
import { openStore, storeAddress } from "./store/open-store.js";
import { storeAudit } from "./store/audit-trail.js";

export interface SessionOptions {
  /** Workspace root; default from configuration, else the current directory. */
  workspace?: string;
  /** Configuration file; default tackle.config.json or config.json in the workspace. */
  configFile?: string;
  approval?: ApprovalMode;
  toolset?: Toolset;
  logger?: Logger;
  /** Connect to configured MCP servers. Default true. */
  mcp?: boolean;
  /**
   * How long opening waits for the configured MCP servers, so that `registry` lists their tools at
   * once. Default 0: opening never waits, and built-in tools never wait for MCP servers. A call
   * to a tool that is not there yet waits for servers still connecting (configuration's
   * `mcpWaitMs`, else 5 s); `await session.mcpReady` waits until every server has connected or
   * failed, and `session.mcp?.status()` tells which are still starting.
   *
   * @example
   * const session = await openSession({ workspace: "." }); // returns before any MCP server answers
   * await session.runner.run({ name: "read_file", args: { path: "README.md" } }); // never waits for them
   * await session.mcpReady; // now registry.list() holds every server's tools that connected
   */
  mcpWaitMs?: number;
  runner?: Omit<ToolRunnerOptions, "registry" | "workspace" | "approval" | "rules">;
  /** web_search's backend: `{ name, search }`, or spec 000's `{ providerName, searchAsync }` (its shape checked as the session opens). */
  searchProvider?: SearchProvider | SpecSearchProvider;
  /** Only these tools will be called: built-in groups that provide none of them are not loaded. */
  only?: readonly string[];
  /**
   * Connect to MCP servers only when `startMcp()` is called, or a call asks for a tool not there
   * yet: `tackle mcp` answers its client's first tools/list before it spawns anything.
   */
  deferMcp?: boolean;
  /**
   * What the model read counts across processes in this workspace (the stale-edit guard's
   * memory, kept in the user's state folder for 12 hours): each `tackle call` is a process.
   */
  readsAcrossProcesses?: boolean;
  /**
   * Opens the shared store and its approval desk (`tackle serve`, `tackle mcp`): calls waiting for
   * a person, their answers, "always" rules, events and the audit trail are shared with every
   * tackle process on the same store.
   */
  desk?: DeskOptions;
}

/** How a session uses the shared store. */
export interface DeskOptions {
  /** Where: `file` (default), `file:/folder`, `postgres://...`; default `TACKLE_STORE`, else configuration's `store`. */
  store?: string;
  /** An unanswered request is rejected after this long. Default 10 minutes. */
  timeoutMs?: number;
  /** This process shows the desk to people (a dashboard): it registers as one, and its events are always kept. */
  serves?: boolean;
  /** The runner's approver, given the desk; default: the desk itself. */
  approver?: (desk: Desk) => Approver;
  /** Told of the desk's events for this process's calls as they happen (besides the store). */
  onEvent?: (event: DeskEvent) => void;
}

/** Everything needed to serve tool calls: configuration, the registry (built-ins and MCP tools) and a runner. */
export interface Session {
  loaded: LoadedConfig;
  registry: ToolRegistry;
  runner: ToolRunner;
  /** The MCP servers from configuration, when any were configured and `mcp` was not false. */
  mcp?: McpManager;
  /** Settles when every configured MCP server has connected or failed. */
  mcpReady: Promise<void>;
  /** Starts connecting the configured MCP servers, if that waits (`deferMcp`); does nothing after the first call. */
  startMcp(): void;
  /** The shared desk, when the session opened one (`desk` option). */
  desk?: Desk;
  /** Stops MCP and language servers and flushes the audit log. */
  close(): Promise<void>;
  /** `await using session = await openSession()` closes it when the block ends. */
  [Symbol.asyncDispose](): Promise<void>;
}

const DEFAULT_MCP_WAIT_MS = 5_000;

/** Opens a session from configuration, the way the `tackle` command does. */
export async function openSession(options: SessionOptions = {}): Promise<Session> {
  // Before any MCP or language server starts (see process/safe-path.ts).
  dropRelativePathEntries();
  const logger = options.logger ?? createLogger("warn");
  const loaded = loadConfig({
    ...(options.configFile ? { file: options.configFile } : {}),
    ...(options.workspace ? { workspace: options.workspace } : {}),
  });
  const closers: Array<() => Promise<void>> = [];
  // The tools' getConfirmation answers with this session's runner, made below.
  let runner: ToolRunner | undefined;
  const registry = await createRegistry(loaded, {
    logger,
    judge: () => {
      if (!runner) throw new Error("The session is still opening: ask getConfirmation once openSession has returned.");
      return runner;
    },
    onClose: (c) => closers.push(c),
    ...(options.toolset ? { toolset: options.toolset } : {}),
    ...(options.searchProvider ? { searchProvider: options.searchProvider } : {}),
    ...(options.only ? { only: options.only } : {}),
  });
  warnRulesNamingNoTool(loaded, logger);
  // MCP servers from configuration are connected here (src/mcp), never holding the session back
  // for longer than the wait: a silent server's tools join later, or not at all.
  let mcp: McpManager | undefined;
  let mcpReady: Promise<void> = Promise.resolve();
  let connecting = false;
  let started = false;
  const configuredWait = loaded.config.mcpWaitMs;
  const callWaitMs = configuredWait ?? DEFAULT_MCP_WAIT_MS;
  const servers = loaded.config.mcpServers;
  const wanted = options.mcp !== false && servers !== undefined && Object.keys(servers).length > 0;
  let Manager: typeof McpManager | undefined;
  const connect = (Loaded: typeof McpManager) => {
    const manager = new Loaded(servers!, { logger, registry, baseDir: loaded.workspace, vars: loaded.env });
    mcp = manager;
    closers.push(() => manager.close());
    // Each server is isolated inside connectAll; nothing here may stop the session opening.
    return manager.connectAll();
  };
  const startMcp = () => {
    if (!wanted || started) return;
    started = true;
    connecting = true;
    mcpReady = (Manager ? connect(Manager) : import("./mcp/client/manager.js").then((m) => connect(m.McpManager)))
      .then(() => undefined)
      .catch((err: unknown) => logger.error(`Connecting MCP servers failed: ${(err as Error).message}`))
      .finally(() => (connecting = false));
  };
  if (wanted && !options.deferMcp) {
    // The MCP client libraries load only when servers are configured.
    Manager = (await import("./mcp/client/manager.js")).McpManager;
    startMcp();
    await waitAtMost(mcpReady, options.mcpWaitMs ?? 0);
  }
  let desk: Desk | undefined;
  let relay: EventRelay | undefined;
  if (options.desk) {
    const storeConfig = loaded.config.store;
    let store;
    try {
      store = await openStore(
        storeAddress(options.desk.store, storeConfig, loaded.env),
        loaded.workspace,
        typeof storeConfig === "object" ? storeConfig.namespace : undefined,
        reachableFolders(loaded),
      );
    } catch (err) {
      // What the session started (MCP servers, language servers) does not outlive it.
      await Promise.allSettled(closers.map((c) => c()));
      throw err;
    }
    relay = new EventRelay(store);
    const sent = relay;
    desk = new Desk(store, {
      ...(options.desk.timeoutMs !== undefined ? { timeoutMs: options.desk.timeoutMs } : {}),
      onEvent: (e) => {
        options.desk?.onEvent?.(e);
        sent.send(e.type, e);
      },
    });
    if (options.desk.serves) {
      relay.watchedHere();
      await store.register(true);
    }
  }
  const shared = desk?.sharedRules();
  if (shared) await shared.ready();
  // Tracing loads only when an OTLP endpoint is configured.
  const otelWanted = Boolean(loaded.env["OTEL_EXPORTER_OTLP_ENDPOINT"] || loaded.env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]);
  const telemetry = otelWanted ? (await import("./runtime/otel.js")).openTelemetry(loaded.env) : undefined;
  runner = new ToolRunner({
    registry,
    ...configuredPolicy(loaded, options.approval),
    // A relative log path belongs to the workspace, not to wherever tackle was started.
    ...(loaded.config.log ? { log: path.resolve(loaded.workspace, loaded.config.log) } : {}),
    ...(loaded.config.timeoutMs ? { timeoutMs: loaded.config.timeoutMs } : {}),
    ...(loaded.config.maxOutputChars ? { maxOutputChars: loaded.config.maxOutputChars } : {}),
    logger,
    toolsPending: () => {
      // A call for a tool not there yet is worth the wait only while servers may still bring it.
      startMcp();
      return connecting ? mcpReady : undefined;
    },
    toolWaitMs: callWaitMs,
    ...(loaded.config.checkpoints === false
      ? {}
      : {
          journal: new ChangeJournal(
            Workspace.open(loaded.workspace),
            loaded.config.checkpoints === true ? {} : (loaded.config.checkpoints ?? {}),
          ),
        }),
    ...(loaded.config.hooks ? { hooks: new Hooks(loaded.config.hooks, loaded.workspace) } : {}),
    reads:
      loaded.config.staleEditGuard === false ? false : new ReadLedger(options.readsAcrossProcesses ? { persistFor: loaded.workspace } : {}),
    ...(telemetry ? { tracer: telemetry.tracer } : {}),
    ...options.runner,
    ...(desk && shared
      ? { approver: options.desk?.approver?.(desk) ?? desk.approver, sharedRules: shared, audit: storeAudit(desk.store) }
      : {}),
  });
  if (relay) {
    const sent = relay;
    runner.on("*", (e) => sent.send(e.type, e));
  }
  const session: Session = {
    loaded,
    registry,
    runner,
    get mcp() {
      return mcp;
    },
    get mcpReady() {
      return mcpReady;
    },
    startMcp,
    ...(desk ? { desk } : {}),
    [Symbol.asyncDispose]() {
      return session.close();
    },
    async close() {
      await desk?.close();
      await Promise.allSettled(closers.map((c) => c()));
      await runner.close();
      await relay?.close();
      await desk?.store.close();
      await telemetry?.shutdown().catch(() => undefined);
    },
  };
  return session;
}

const warnedRules = new Set<string>();

/** A rule whose tool is misspelt (`shel(ls)`) would never match, without a word: each is a warning, once per process. */
function warnRulesNamingNoTool(loaded: LoadedConfig, logger: Logger): void {
  const permissions = loaded.config.permissions as Record<string, unknown> | undefined;
  for (const list of ["allow", "ask", "deny"] as const) {
    const rules = permissions?.[list];
    if (!Array.isArray(rules)) continue;
    for (const rule of rules) {
      if (typeof rule !== "string" || warnedRules.has(`${loaded.file ?? ""}\0${rule}`)) continue;
      let tool: string;
      try {
        tool = parseRule(rule).tool;
      } catch {
        continue;
      }
      const why = unknownRuleTool(tool, loaded.config);
      if (!why) continue;
      warnedRules.add(`${loaded.file ?? ""}\0${rule}`);
      logger.warn(`${loaded.file ?? "configuration"}: the rule "${rule}" in permissions.${list} will never match: ${why}`);
    }
  }
}

/**
 * The folders tools and commands can write: the workspace, the roots the configuration adds, and the
 * folders `shell.sandbox.writableRoots` opens to commands (`~/` is the home folder).
 */
function reachableFolders(loaded: LoadedConfig): string[] {
  const shell = (loaded.config as { shell?: { sandbox?: { writableRoots?: unknown } } }).shell;
  const opened = Array.isArray(shell?.sandbox?.writableRoots)
    ? shell.sandbox.writableRoots.filter((r): r is string => typeof r === "string")
    : [];
  const expand = (p: string) => (p === "~" || p.startsWith("~/") ? path.join(os.homedir(), p.slice(1)) : path.resolve(loaded.workspace, p));
  return [loaded.workspace, ...(loaded.config.roots ?? []).map((r) => expand(r.path)), ...opened.map(expand)];
}
