import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import type { Session } from "../session.js";
import type { HttpApprover } from "./http-approver.js";
import type { EventHub } from "./event-hub.js";
import { DASHBOARD_HTML } from "./dashboard.js";
import { withSpecNames } from "./spec-names.js";
import { allow, HttpError, json, parse, readJson } from "./http-json.js";
import { approvalAnswer } from "./approval-answer.js";
import type { WaitingApproval } from "./http-approver.js";
import type { CallHistory } from "./call-history.js";
import { historyRoutes } from "./history-routes.js";
import type { Handler, Route } from "./route.js";
import { parseRules, ruleNamesTool, type Rule } from "../runtime/rules.js";

/** Largest request body accepted. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** The approval scope of calls made through this server (its "always" answers apply only here). */
export const SERVE_SCOPE = "serve";

const CallBody = z
  .object({
    name: z.string().min(1).optional(),
    args: z.unknown().optional(),
    id: z.string().min(1).max(200).optional(),
    /** What the agent was doing: shown with the approval request. */
    context: z.string().max(10_000).optional(),
    // Spec 002's names for the same fields.
    tool: z.string().min(1).optional(),
    params: z.unknown().optional(),
    tool_call_id: z.string().min(1).max(200).optional(),
  })
  .transform(({ tool, params, tool_call_id, ...body }) => ({
    ...body,
    name: body.name ?? tool,
    args: body.args ?? params,
    id: body.id ?? tool_call_id,
  }))
  .refine((body) => body.name !== undefined, { message: "name (or tool) is required: the tool to call", path: ["name"] });
const CheckBody = z.object({ args: z.unknown() });

export interface ApiContext {
  session: Session;
  approvals: HttpApprover;
  events: EventHub;
  history: CallHistory;
  maxBodyBytes?: number;
}

/** Routes the JSON API and the dashboard page. */
export function apiHandler(context: ApiContext): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> {
  const routes = apiRoutes(context);
  return async (req, res, url) => {
    try {
      const method = req.method ?? "GET";
      for (const route of routes) {
        const params =
          typeof route.path === "string" ? (route.path === url.pathname ? [] : undefined) : route.path.exec(url.pathname)?.slice(1);
        if (!params) continue;
        allow(method, route.methods);
        return await route.handle(req, res, url, params as string[]);
      }
      throw new HttpError(
        404,
        `Not found: ${url.pathname}. The API is under /api (tools, calls, approvals, events, metrics, history, state).`,
      );
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      if (res.headersSent) return void res.destroy();
      if (err.allow) res.setHeader("Allow", err.allow);
      json(res, err.status, { error: err.message });
    }
  };
}

function apiRoutes(context: ApiContext): Route[] {
  const { session, approvals, events, history } = context;
  const maxBody = context.maxBodyBytes ?? MAX_BODY_BYTES;
  const page: Handler = (req, res) => {
    res.writeHead(200, {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      // The page needs nothing from elsewhere; say so to the browser.
      "Content-Security-Policy":
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
    });
    res.end(req.method === "HEAD" ? undefined : DASHBOARD_HTML);
  };
  return [
    { path: "/", methods: ["GET", "HEAD"], handle: page },
    { path: "/index.html", methods: ["GET", "HEAD"], handle: page },
    {
      path: "/api/tools",
      methods: ["GET"],
      handle: (_req, res) =>
        json(
          res,
          200,
          session.registry.list().map((t) => ({
            name: t.name,
            description: t.description,
            inputSchema: t.inputSchema,
            ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
            effect: t.effect,
          })),
        ),
    },
    { path: "/api/rules", methods: ["GET"], handle: (_req, res) => json(res, 200, rulesByTool(session)) },
    { path: "/api/metrics", methods: ["GET"], handle: (_req, res) => json(res, 200, session.runner.metrics.all()) },
    // Recent durations per tool, for the dashboard's charts.
    { path: "/api/metrics/recent", methods: ["GET"], handle: (_req, res) => json(res, 200, history.series()) },
    {
      path: "/api/state",
      methods: ["GET"],
      handle: (_req, res) => {
        const active = history.active();
        json(res, 200, {
          state: active.some((a) => a.status === "running") ? "tool_execution" : "idle",
          active,
          waiting: approvals.waiting().length,
        });
      },
    },
    { path: "/api/events", methods: ["GET"], handle: (_req, res) => void events.add(res) },
    {
      path: "/api/approvals",
      methods: ["GET"],
      handle: async (_req, res) =>
        json(res, 200, await Promise.all(approvals.waiting().map((w) => pendingView(w, session, approvals.timeoutMs)))),
    },
    { path: "/api/calls", methods: ["POST"], handle: callRoute(session, maxBody) },
    ...historyRoutes(history),
    {
      // Checks edited arguments against the tool's schema before they are sent as the answer.
      path: /^\/api\/approvals\/([^/]+)\/check$/,
      methods: ["POST"],
      handle: async (req, res, _url, [rawId]) => {
        const id = decodeId(rawId!);
        const waiting = approvals.waiting().find((w) => w.request.toolCallId === id);
        if (!waiting) throw new HttpError(404, `No pending approval with id ${id} (answered, timed out, or never asked).`);
        const { args } = parse(CheckBody, await readJson(req, maxBody));
        const tool = session.registry.get(waiting.request.tool);
        if (!tool) throw new HttpError(404, `The tool ${waiting.request.tool} is no longer available.`);
        const checked = tool.validate(args);
        json(res, 200, checked.valid ? { valid: true } : { valid: false, error: checked.error });
      },
    },
    {
      path: /^\/api\/approvals\/([^/]+)(?:\/(approve|reject))?$/,
      methods: ["POST"],
      handle: async (req, res, _url, [rawId, kind]) => {
        const id = decodeId(rawId!);
        const response = approvalAnswer(kind as "approve" | "reject" | undefined, await readJson(req, maxBody, kind !== undefined));
        if (!approvals.answer(id, response))
          throw new HttpError(404, `No pending approval with id ${id} (answered, timed out, or never asked).`);
        json(res, 200, { ok: true, toolCallId: id, approved: response.approved });
      },
    },
  ];
}

function decodeId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, "The approval id is not valid URL encoding.");
  }
}

/**
 * `GET /api/rules`: per tool, the configured rules that name it and what "always" granted in this
 * server's session (the approval mode decides the rest).
 */
function rulesByTool(session: Session) {
  const rules = parseRules(session.loaded.config.permissions);
  const granted = session.runner.sessionAllows(SERVE_SCOPE);
  return {
    approval: session.runner.approval,
    tools: Object.fromEntries(
      session.registry.list().map((t) => {
        const names = session.registry.namesOf(t.name);
        const naming = (list: readonly Rule[]) => list.filter((r) => ruleNamesTool(r, names)).map((r) => r.source);
        return [t.name, { allow: naming(rules.allow), ask: naming(rules.ask), deny: naming(rules.deny), always: naming(granted) }];
      }),
    ),
  };
}

/**
 * A waiting approval as the API shows it (with spec 002's names beside tackle's), with its clock
 * and the rules "always" would remember.
 */
async function pendingView({ request: r, askedAt, expiresAt }: WaitingApproval, session: Session, timeoutMs: number) {
  return withSpecNames({
    toolCallId: r.toolCallId,
    tool: r.tool,
    args: r.args,
    effect: r.effect,
    reason: r.reason,
    requiresApproval: true,
    ...(r.preview !== undefined ? { preview: r.preview } : {}),
    ...(r.description !== undefined ? { description: r.description } : {}),
    ...(r.context !== undefined ? { context: r.context } : {}),
    askedAt: new Date(askedAt).toISOString(),
    expiresAt: new Date(expiresAt).toISOString(),
    timeoutMs,
    // What is left, by the server's clock: the page counts down from it by its own.
    remainingMs: Math.max(0, expiresAt - Date.now()),
    alwaysRules: r.alwaysRules ?? [],
  });
}

/** `POST /api/calls`: runs one call; a client that hangs up cancels it. */
function callRoute(session: Session, maxBody: number): Handler {
  // Calls in flight by id: a second call under the same id could not be told apart when answering.
  const running = new Set<string>();
  return async (req, res) => {
    const body = parse(CallBody, await readJson(req, maxBody));
    if (body.id !== undefined && running.has(body.id))
      throw new HttpError(409, `A call with id ${body.id} is already running; use a unique id.`);
    const controller = new AbortController();
    // A client that hangs up no longer wants the result: the call (or its wait for approval) stops.
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    if (body.id !== undefined) running.add(body.id);
    try {
      const outcome = await session.runner.run(
        { name: body.name!, ...(body.args !== undefined ? { args: body.args } : {}), ...(body.id !== undefined ? { id: body.id } : {}) },
        { scope: SERVE_SCOPE, signal: controller.signal, ...(body.context !== undefined ? { context: body.context } : {}) },
      );
      json(res, 200, withSpecNames(outcome));
    } finally {
      if (body.id !== undefined) running.delete(body.id);
    }
  };
}
