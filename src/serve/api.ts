import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import type { Session } from "../session.js";
import type { HttpApprover } from "./http-approver.js";
import type { EventHub } from "./event-hub.js";
import { DASHBOARD_HTML } from "./dashboard.js";
import { withSpecNames } from "./spec-names.js";
import { allow, HttpError, json, parse, readJson } from "./http-json.js";
import { approvalAnswer } from "./approval-answer.js";
import type { ApprovalRequest } from "../runtime/approver.js";

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
export interface ApiContext {
  session: Session;
  approvals: HttpApprover;
  events: EventHub;
  maxBodyBytes?: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL, params: string[]) => Promise<void> | void;

interface Route {
  /** The path, or a pattern whose groups become `params`. */
  path: string | RegExp;
  methods: string[];
  handle: Handler;
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
      throw new HttpError(404, `Not found: ${url.pathname}. The API is under /api (tools, calls, approvals, events, metrics).`);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      if (res.headersSent) return void res.destroy();
      if (err.allow) res.setHeader("Allow", err.allow);
      json(res, err.status, { error: err.message });
    }
  };
}

function apiRoutes(context: ApiContext): Route[] {
  const { session, approvals, events } = context;
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
    { path: "/api/metrics", methods: ["GET"], handle: (_req, res) => json(res, 200, session.runner.metrics.all()) },
    { path: "/api/events", methods: ["GET"], handle: (_req, res) => void events.add(res) },
    { path: "/api/approvals", methods: ["GET"], handle: (_req, res) => json(res, 200, approvals.pending().map(pendingView)) },
    { path: "/api/calls", methods: ["POST"], handle: callRoute(session, maxBody) },
    {
      path: /^\/api\/approvals\/([^/]+)(?:\/(approve|reject))?$/,
      methods: ["POST"],
      handle: async (req, res, _url, [rawId, kind]) => {
        let id: string;
        try {
          id = decodeURIComponent(rawId!);
        } catch {
          throw new HttpError(400, "The approval id is not valid URL encoding.");
        }
        const response = approvalAnswer(kind as "approve" | "reject" | undefined, await readJson(req, maxBody, kind !== undefined));
        if (!approvals.answer(id, response))
          throw new HttpError(404, `No pending approval with id ${id} (answered, timed out, or never asked).`);
        json(res, 200, { ok: true, toolCallId: id, approved: response.approved });
      },
    },
  ];
}

/** A waiting approval as the API shows it (with spec 002's names beside tackle's). */
function pendingView(r: ApprovalRequest) {
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
