import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import type { Session } from "../session.js";
import os from "node:os";
import type { Desk } from "../store/desk.js";
import type { DeskItem } from "../store/store.js";
import type { EventHub } from "./event-hub.js";
import { DASHBOARD_HTML } from "./dashboard.js";
import { withSpecNames } from "./spec-names.js";
import { allow, HttpError, json, parse, readJson } from "./http-json.js";
import { approvalAnswer, namedCall } from "./approval-answer.js";
import type { CallHistory } from "./call-history.js";
import { historyRoutes } from "./history-routes.js";
import type { Handler, Route } from "./route.js";
import type { Metrics } from "../runtime/metrics.js";
import { parseRule, parseRules, ruleNamesTool, type Rule } from "../runtime/rules.js";
import { ToolError } from "../core/errors.js";

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
  desk: Desk;
  events: EventHub;
  history: CallHistory;
  /** Every process's calls on the store since this server started. */
  metrics: Metrics;
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
        `Not found: ${url.pathname}. The API is under /api (tools, calls, approvals, events, metrics, history, state, checkpoints, undo).`,
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
  const { session, desk, events, history } = context;
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
    { path: "/api/rules", methods: ["GET"], handle: async (_req, res) => json(res, 200, await rulesByTool(session, desk)) },
    {
      // A rule a person writes at the desk: it applies to every agent on the store, at once.
      path: "/api/rules/shared",
      methods: ["POST"],
      handle: async (req, res) => {
        const body = parse(SharedRuleBody, await readJson(req, maxBody));
        try {
          parseRule(body.rule);
        } catch (err) {
          throw new HttpError(400, (err as Error).message);
        }
        const kept = await desk.store.addRule({ rule: body.rule, origin: "person", by: body.by ?? defaultPerson() });
        json(res, 200, kept);
      },
    },
    {
      path: /^\/api\/rules\/shared\/([^/]+)$/,
      methods: ["DELETE"],
      handle: async (req, res, url, [rawId]) => {
        const id = decodeId(rawId!);
        if (!(await desk.store.removeRule(id, url.searchParams.get("by") ?? defaultPerson())))
          throw new HttpError(404, `No shared rule with id ${id}.`);
        json(res, 200, { ok: true, id });
      },
    },
    { path: "/api/metrics", methods: ["GET"], handle: (_req, res) => json(res, 200, context.metrics.all()) },
    // Recent durations per tool, for the dashboard's charts.
    { path: "/api/metrics/recent", methods: ["GET"], handle: (_req, res) => json(res, 200, history.series()) },
    {
      path: "/api/state",
      methods: ["GET"],
      handle: async (_req, res) => {
        const active = history.active();
        const waiting = await desk.waiting();
        json(res, 200, {
          state: active.some((a) => a.status === "running") ? "tool_execution" : "idle",
          active,
          waiting: waiting.filter((w) => !w.orphaned).length,
          orphaned: waiting.filter((w) => w.orphaned).length,
          workspace: session.loaded.workspace,
          store: { kind: desk.store.kind, location: desk.store.location },
        });
      },
    },
    {
      path: "/api/events",
      methods: ["GET"],
      handle: async (req, res, url) => {
        // EventSource sends Last-Event-ID when it reconnects; a client that cannot set headers may pass it in the query.
        const header = req.headers["last-event-id"];
        const last = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get("lastEventId") ?? undefined;
        if (last !== undefined && !/^\d{1,20}$/.test(last)) throw new HttpError(400, "Last-Event-ID must be an event id this server sent.");
        await events.add(
          res,
          last === undefined
            ? undefined
            : async () =>
                (await desk.store.eventsAfter(last, REPLAY_LIMIT)).map((e) => ({
                  id: e.id,
                  type: e.type,
                  data: withSpecNames(e.data as object),
                })),
        );
      },
    },
    {
      path: "/api/approvals",
      methods: ["GET"],
      handle: async (_req, res) =>
        json(
          res,
          200,
          (await desk.waiting()).map((w) => pendingView(w, desk.store.instance)),
        ),
    },
    { path: "/api/calls", methods: ["POST"], handle: callRoute(session, maxBody) },
    ...checkpointRoutes(session, maxBody),
    ...historyRoutes(history),
    {
      // Checks edited arguments against the tool's schema before they are sent as the answer.
      path: /^\/api\/approvals\/([^/]+)\/check$/,
      methods: ["POST"],
      handle: async (req, res, _url, [rawId]) => {
        const id = decodeId(rawId!);
        const waiting = (await desk.waiting()).find((w) => w.id === id || w.request.toolCallId === id);
        if (!waiting) throw new HttpError(404, `No pending approval with id ${id} (answered, timed out, or never asked).`);
        const { args } = parse(CheckBody, await readJson(req, maxBody));
        const tool = session.registry.get(waiting.request.tool);
        if (!tool) throw new HttpError(404, `The tool ${waiting.request.tool} is no longer available.`);
        const checked = tool.validate(args);
        json(res, 200, checked.valid ? { valid: true } : { valid: false, error: checked.error });
      },
    },
    {
      // Spec 002's routes: the call is named in the body.
      path: /^(?:\/api)?\/(approve|reject)$/,
      methods: ["POST"],
      handle: async (req, res, _url, [kind]) => {
        const { id, body } = namedCall(await readJson(req, maxBody));
        const { response, by } = approvalAnswer(kind as "approve" | "reject", body);
        const answered = await desk.answer(id, response, by ?? defaultPerson());
        if (!answered.ok) throw new HttpError(answered.status, answered.error);
        json(res, 200, answered);
      },
    },
    {
      path: /^\/api\/approvals\/([^/]+)(?:\/(approve|reject))?$/,
      methods: ["POST"],
      handle: async (req, res, _url, [rawId, kind]) => {
        const id = decodeId(rawId!);
        const { response, by } = approvalAnswer(kind as "approve" | "reject" | undefined, await readJson(req, maxBody, kind !== undefined));
        const answered = await desk.answer(id, response, by ?? defaultPerson());
        if (!answered.ok) throw new HttpError(answered.status, answered.error);
        json(res, 200, answered);
      },
    },
  ];
}

const UndoBody = z.object({
  count: z.number().int().positive().max(10_000).optional(),
  to: z.string().min(1).max(200).optional(),
  dryRun: z.boolean().optional(),
});
const CheckpointBody = z.object({ name: z.string().min(1).max(200) });

/** The journal's routes: what tools changed, named checkpoints, and undo (files.changed sent for what it restores). */
function checkpointRoutes(session: Session, maxBody: number): Route[] {
  const journal = () => {
    const j = session.runner.journal;
    if (!j) throw new HttpError(404, 'Checkpoints are off in this workspace\'s configuration ("checkpoints": false).');
    return j;
  };
  const answerError = (err: unknown): never => {
    if (err instanceof ToolError) throw new HttpError(err.code === "STALE_FILE" ? 409 : 400, err.message);
    throw err;
  };
  return [
    {
      path: "/api/checkpoints",
      methods: ["GET", "POST"],
      handle: async (req, res) => {
        if (req.method === "GET") return json(res, 200, journal().list());
        const body = parse(CheckpointBody, await readJson(req, maxBody));
        journal().checkpoint(body.name);
        json(res, 200, { ok: true, name: body.name });
      },
    },
    {
      path: "/api/undo",
      methods: ["POST"],
      handle: async (req, res) => {
        const body = parse(UndoBody, (await readJson(req, maxBody, true)) ?? {});
        const result = await journal()
          .undo({
            ...(body.count !== undefined ? { count: body.count } : {}),
            ...(body.to !== undefined ? { to: body.to } : {}),
            dryRun: Boolean(body.dryRun),
          })
          .catch(answerError);
        if (!body.dryRun) {
          const id = `undo-${result.undone.at(-1)?.id ?? ""}`;
          for (const f of result.files) {
            session.runner.events.emit({
              type: "file.changed",
              toolCallId: id,
              tool: "undo",
              path: f.path,
              operation: f.restored === "removed" ? "deleted" : "modified",
            });
          }
        }
        json(res, 200, result);
      },
    },
  ];
}

const SharedRuleBody = z.object({ rule: z.string().min(1).max(1000), by: z.string().min(1).max(100).optional() });

/** Events a reconnecting client is sent again at most. */
const REPLAY_LIMIT = 5_000;

/** Who answered, when the front end does not say. */
function defaultPerson(): string {
  return `a person at ${os.hostname()}`;
}

function decodeId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, "The approval id is not valid URL encoding.");
  }
}

/**
 * `GET /api/rules`: per tool, the configured rules that name it, what "always" granted in this
 * server's session and what people granted at the shared desk (the approval mode decides the
 * rest); and the shared rules with their origin.
 */
async function rulesByTool(session: Session, desk: Desk) {
  const rules = parseRules(session.loaded.config.permissions);
  const shared = await desk.rules();
  const sharedParsed: Rule[] = shared.flatMap((r) => {
    try {
      return [parseRule(r.rule)];
    } catch {
      return [];
    }
  });
  const granted = [...session.runner.sessionAllows(SERVE_SCOPE), ...sharedParsed];
  return {
    approval: session.runner.approval,
    tools: Object.fromEntries(
      session.registry.list().map((t) => {
        const names = session.registry.namesOf(t.name);
        const naming = (list: readonly Rule[]) => list.filter((r) => ruleNamesTool(r, names)).map((r) => r.source);
        return [
          t.name,
          { allow: naming(rules.allow), ask: naming(rules.ask), deny: naming(rules.deny), always: [...new Set(naming(granted))] },
        ];
      }),
    ),
    shared,
  };
}

/**
 * A waiting approval as the API shows it (with spec 002's names beside tackle's), with its clock
 * and the rules "always" would remember.
 */
function pendingView({ id, request: r, askedAt, expiresAt, instance, orphaned }: DeskItem, here: string) {
  return withSpecNames({
    id,
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
    timeoutMs: expiresAt - askedAt,
    // What is left, by the server's clock: the page counts down from it by its own.
    remainingMs: Math.max(0, expiresAt - Date.now()),
    alwaysRules: r.alwaysRules ?? [],
    /** Which process waits for the answer; orphaned when it is gone (nothing would run the call). */
    instance,
    /** Asked by this server's own calls. */
    local: instance === here,
    orphaned,
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
