import { randomBytes, randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import {
  CLIENT_CAPABILITIES_META_KEY,
  Server,
  inputRequired,
  inputResponse,
  type CallToolRequest,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ToolRegistry } from "../../registry/registry.js";
import type { ToolOutcome } from "../../core/result.js";
import type { Logger } from "../../core/logger.js";
import type { RunOptions, ToolRunner } from "../../runtime/runner.js";
import type { ToolEvent } from "../../runtime/events.js";
import type { ApprovalRequest, ApprovalResponse } from "../../runtime/approver.js";
import { toMcpCallToolResult, toMcpTool, toMcpTools } from "../../adapters/mcp.js";
import { WorkspaceResources } from "./workspace-resources.js";
import { CallServer, isModern } from "./call-server.js";
import { sharedResult } from "./shared-results.js";
import {
  APPROVAL_SCHEMA,
  approvalMessage,
  responseFromElicitation,
  type AskPerson,
  type ElicitationRouter,
} from "./elicitation-approver.js";

const VERSION = (createRequire(import.meta.url)("../../../package.json") as { version: string }).version;

/** How long a 2026-era call waits, parked, for the client to come back with the person's answer. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

/** The key the single embedded approval request travels under in an input_required result. */
const APPROVAL_KEY = "approval";

/** Longest output chunk quoted in one progress notification's message. */
const PROGRESS_MESSAGE_CHARS = 2000;

type Emit = ((p: { progress?: number; total?: number; message?: string }) => void) & {
  /** Settles once every notification sent so far has been handed to the transport. */
  flush?: () => Promise<void>;
};
const noEmit: Emit = () => {};

/**
 * A 2026-era call that waits for approval. The 2026-07-28 revision has no server-to-client
 * request: the server answers tools/call with `input_required` and the client retries with the
 * person's answer. The run itself stays alive here (one run, one audit record, one outcome)
 * while the request that started it has already been answered; the retry picks it up.
 */
interface PendingCall {
  name: string;
  argsKey: string;
  controller: AbortController;
  outcome: Promise<ToolOutcome>;
  question?: { request: ApprovalRequest; answer: (response: ApprovalResponse) => void };
  /** Wakes the leg currently waiting, when the run asks a question. */
  wake?: () => void;
  /** Progress goes to whichever request (leg) currently carries the call. */
  emit: Emit;
  timer?: NodeJS.Timeout;
}

export interface CallServiceOptions {
  registry: ToolRegistry;
  runner: ToolRunner;
  router: ElicitationRouter;
  logger: Logger;
  approvalTimeoutMs?: number;
  /** Told after each tools/list is answered. */
  onToolsListed?: () => void;
}

/**
 * Builds MCP server instances over one registry and runner, and remembers the live ones so a
 * registry change reaches every connected client. One instance serves one stdio connection, one
 * 2025-era HTTP session, or one 2026-era HTTP request.
 */
export class ToolCallService {
  readonly #registry: ToolRegistry;
  readonly #runner: ToolRunner;
  readonly #router: ElicitationRouter;
  readonly #logger: Logger;
  readonly #approvalTimeoutMs: number;
  readonly #onToolsListed: (() => void) | undefined;
  #closed = false;
  readonly #parked = new Map<string, PendingCall>();
  readonly #resources: WorkspaceResources;
  /** Instances that outlive a request: where `notifications/tools/list_changed` is sent. */
  readonly #live = new Set<Server>();
  /** Each connection's approval scope: one client's "always" is not another's. */
  readonly #scopes = new WeakMap<Server, string>();

  constructor(options: CallServiceOptions) {
    this.#registry = options.registry;
    this.#runner = options.runner;
    this.#router = options.router;
    this.#logger = options.logger;
    this.#onToolsListed = options.onToolsListed;
    this.#approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    this.#resources = new WorkspaceResources(options.registry, options.runner);
  }

  /** A new low-level server answering tools/list and tools/call from the registry. */
  createServer(options: { track?: boolean } = {}): Server {
    const server = new CallServer(
      { name: "tackle", title: "tackle", version: VERSION },
      {
        capabilities: { tools: { listChanged: true }, resources: {} },
        inputRequired: { roundTimeoutMs: this.#approvalTimeoutMs },
      },
    );
    // The tools' own JSON Schemas go out as they are: no zod re-declaration to drift from them.
    server.setRequestHandler("tools/list", () => {
      const tools = toMcpTools(this.#registry);
      // After the answer has gone out, not before it.
      if (this.#onToolsListed) setImmediate(this.#onToolsListed);
      return { tools: tools as never };
    });
    server.onCall((request, ctx) => this.#call(server, request, ctx));
    server.setRequestHandler("resources/list", (_request, ctx) =>
      this.#resources.list({ scope: this.#scopeOf(server), signal: ctx.mcpReq.signal }),
    );
    server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }));
    server.setRequestHandler("resources/read", (request, ctx) =>
      this.#resources.read(request.params.uri, { scope: this.#scopeOf(server), signal: ctx.mcpReq.signal }),
    );
    if (options.track) {
      this.#live.add(server);
      const previous = server.onclose;
      server.onclose = () => {
        this.#live.delete(server);
        previous?.();
      };
    }
    return server;
  }

  /**
   * The approval scope of a connection (stdio, or a 2025-era HTTP session). 2026-era requests
   * carry no connection, so their "always" approvals share one scope among them.
   */
  #scopeOf(server: Server): string {
    let scope = this.#scopes.get(server);
    if (!scope) this.#scopes.set(server, (scope = `connection:${randomUUID()}`));
    return scope;
  }

  /** Tells every connected long-lived instance that the tool list changed. */
  notifyToolsChanged(): void {
    for (const server of this.#live) {
      if (!server.transport) continue;
      server.sendToolListChanged().catch((err: unknown) => this.#logger.debug("tools/list_changed not delivered", { error: String(err) }));
    }
  }

  /**
   * Works out the listed tools' JSON Schemas one tool per turn of the event loop, while the
   * server waits for its client: each tool keeps what it worked out, so the first tools/list
   * answers without the conversion (about 20 ms for the built-in tools on a cold process), and a
   * request that comes in meanwhile waits for at most one tool's.
   */
  prepareToolList(): void {
    const tools = this.#registry.list();
    let next = 0;
    const step = () => {
      if (this.#closed || next >= tools.length) return;
      try {
        toMcpTool(tools[next++]!);
      } catch {
        // A schema that cannot be converted fails tools/list itself, where the client hears of it.
      }
      setImmediate(step);
    };
    setImmediate(step);
  }

  /** Refuses every parked call (server shutting down). */
  close(): void {
    this.#closed = true;
    for (const [key, p] of this.#parked) {
      this.#parked.delete(key);
      clearTimeout(p.timer);
      p.controller.abort(new Error("the MCP server is shutting down"));
      p.question?.answer({ approved: false, automatic: true, message: "the MCP server shut down before an answer came" });
    }
  }

  async #call(server: Server, request: CallToolRequest, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    const name = request.params.name;
    const args = request.params.arguments ?? {};
    if (isModern(server)) {
      const state = ctx.mcpReq.requestState();
      if (typeof state === "string") return this.#resume(server, state, name, args, ctx);
      return this.#startModern(server, name, args, ctx);
    }
    const id = `mcp_${randomUUID()}`;
    const caps = server.getClientCapabilities();
    const unroute = this.#router.route(id, canElicitForm(caps) ? legacyAsk(ctx, caps, this.#approvalTimeoutMs) : undefined);
    try {
      const emit = progressEmitter(ctx);
      const options: RunOptions = { signal: ctx.mcpReq.signal, scope: this.#scopeOf(server) };
      // Without a progress token nobody listens: the runner is spared the callbacks.
      if (emit !== noEmit)
        Object.assign(
          options,
          progressOptions(id, () => emit),
        );
      const outcome = await this.#runner.run({ id, name, args }, options);
      // Only a call with a progress token has notifications to see out first.
      if (emit.flush) await emit.flush();
      return result(server, this.#registry, outcome);
    } finally {
      unroute();
    }
  }

  #startModern(
    server: Server,
    name: string,
    args: Record<string, unknown>,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    const id = `mcp_${randomUUID()}`;
    const caps = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
      ClientCapabilities | undefined;
    const controller = new AbortController();
    const p: PendingCall = { name, argsKey: stableKey(args), controller, outcome: undefined as never, emit: noEmit };
    const ask: AskPerson | undefined = canElicitForm(caps)
      ? (request, signal) =>
          new Promise<ApprovalResponse>((resolve, reject) => {
            if (signal.aborted) return reject(signal.reason);
            signal.addEventListener("abort", () => reject(signal.reason), { once: true });
            p.question = { request, answer: resolve };
            p.wake?.();
          })
      : undefined;
    const unroute = this.#router.route(id, ask);
    p.outcome = this.#runner.run({ id, name, args }, { signal: controller.signal, scope: "modern", ...progressOptions(id, () => p.emit) });
    void p.outcome.finally(unroute);
    return this.#drive(server, p, ctx);
  }

  /** Carries a 2026-era call through one request: to its outcome, or to the next question. */
  async #drive(server: Server, p: PendingCall, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    const leg = ctx.mcpReq.signal;
    const onAbort = () => p.controller.abort(leg.reason);
    if (leg.aborted) onAbort();
    leg.addEventListener("abort", onAbort, { once: true });
    p.emit = progressEmitter(ctx);
    try {
      const asked = new Promise<"asked">((resolve) => {
        p.wake = () => resolve("asked");
        if (p.question) resolve("asked");
      });
      const next = await Promise.race([p.outcome, asked]);
      await p.emit.flush?.();
      if (next !== "asked") return result(server, this.#registry, next);
      const question = p.question!;
      const key = randomBytes(24).toString("base64url");
      this.#parked.set(key, p);
      p.timer = setTimeout(() => {
        if (!this.#parked.delete(key)) return;
        p.question = undefined;
        question.answer({
          approved: false,
          automatic: true,
          message: `no answer to the approval request came within ${Math.round(this.#approvalTimeoutMs / 1000)} s`,
        });
      }, this.#approvalTimeoutMs);
      p.timer.unref();
      return inputRequired({
        inputRequests: {
          [APPROVAL_KEY]: inputRequired.elicit({
            mode: "form",
            message: approvalMessage(question.request),
            requestedSchema: APPROVAL_SCHEMA as never,
          }),
        },
        // A random key into server memory: unguessable, so a forged or replayed state finds nothing.
        requestState: key,
      });
    } finally {
      leg.removeEventListener("abort", onAbort);
      p.wake = undefined;
      p.emit = noEmit;
    }
  }

  async #resume(
    server: Server,
    state: string,
    name: string,
    args: Record<string, unknown>,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    const p = this.#parked.get(state);
    if (!p || !p.question) {
      return errorResult(
        `The approval this call answers is no longer pending (it expired, was answered already, or the server restarted). Call ${name} again.`,
      );
    }
    if (p.name !== name || p.argsKey !== stableKey(args)) {
      return errorResult(
        `The retried call does not match the call that asked for approval (tool or arguments differ). Call ${name} again.`,
      );
    }
    this.#parked.delete(state);
    clearTimeout(p.timer);
    const view = inputResponse(ctx.mcpReq.inputResponses, APPROVAL_KEY);
    const response: ApprovalResponse =
      view.kind === "elicit"
        ? responseFromElicitation(view)
        : { approved: false, message: "the client sent no answer to the approval request" };
    const question = p.question;
    p.question = undefined;
    question.answer(response);
    return this.#drive(server, p, ctx);
  }
}

/** Form elicitation is supported when declared, or with a bare `elicitation: {}` (the rule before modes existed). */
function canElicitForm(caps: ClientCapabilities | undefined): boolean {
  const e = caps?.elicitation as Record<string, unknown> | undefined;
  if (!e || typeof e !== "object") return false;
  return "form" in e || !("url" in e);
}

/** 2025 era: a real elicitation/create request to the client, related to the call. */
function legacyAsk(ctx: ServerContext, caps: ClientCapabilities | undefined, timeoutMs: number): AskPerson {
  return async (request, signal) => {
    const params = { mode: "form" as const, message: approvalMessage(request), requestedSchema: APPROVAL_SCHEMA as never };
    const options = { signal, timeout: timeoutMs, resetTimeoutOnProgress: true };
    const declaresForm = Boolean((caps?.elicitation as Record<string, unknown> | undefined)?.form);
    const answer = declaresForm
      ? await ctx.mcpReq.elicitInput(params, options)
      : // A bare `elicitation: {}` predates modes; elicitInput insists on `form`, the wire request does not.
        await ctx.mcpReq.send({ method: "elicitation/create", params }, options);
    return responseFromElicitation(answer);
  };
}

/**
 * Sends progress notifications for a request that carried a progress token; a no-op otherwise.
 * A tool's own progress goes out as reported. Output chunks go out as messages; their progress
 * value counts chunks until the tool reports progress of its own, and after that creeps up by a
 * hair so the value still increases with every notification, as the protocol requires.
 */
function progressEmitter(ctx: ServerContext): Emit {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return noEmit;
  let last = 0;
  let reported = false;
  const inFlight = new Set<Promise<void>>();
  const emit: Emit = ({ progress, total, message }) => {
    let value: number;
    if (progress !== undefined) {
      value = progress > last ? progress : last + 1e-6;
      reported = true;
    } else {
      value = reported ? last + 1e-6 : Math.floor(last) + 1;
      total = undefined;
    }
    last = value;
    const params = {
      progressToken: token,
      progress: value,
      ...(total !== undefined && total >= value ? { total } : {}),
      ...(message ? { message } : {}),
    };
    const sent = ctx.mcpReq.notify({ method: "notifications/progress", params }).catch(() => {});
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  };
  // The result must not overtake the last progress: clients drop progress for finished requests.
  // SDK clients dispatch notifications a microtask later but settle responses at once, so over
  // stdio a result in the same read as the last progress would overtake it: let it go out alone.
  emit.flush = async () => {
    if (last === 0) return;
    await Promise.allSettled([...inFlight]);
    await new Promise<void>((resolve) => setTimeout(resolve, 1));
  };
  return emit;
}

function progressOptions(id: string, emitter: () => Emit) {
  return {
    onOutput: (chunk: string) => {
      emitter()({ message: chunk.length > PROGRESS_MESSAGE_CHARS ? chunk.slice(-PROGRESS_MESSAGE_CHARS) : chunk });
    },
    onEvent: (event: ToolEvent) => {
      if (event.type !== "tool.progress" || event.toolCallId !== id) return;
      emitter()({
        progress: event.progress,
        ...(event.total !== undefined ? { total: event.total } : {}),
        ...(event.message ? { message: event.message } : {}),
      });
    },
  };
}

function result(server: Server, registry: ToolRegistry, outcome: ToolOutcome): CallToolResult {
  return sharedResult(outcome, server, () => {
    const value = toMcpCallToolResult(outcome) as CallToolResult;
    const output = registry.get(outcome.toolName)?.outputSchema;
    return server.projectCallToolResult(value, output?.type === "object" ? output : undefined);
  });
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** Arguments as a canonical string: a retry must carry the very call that asked. */
function stableKey(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
