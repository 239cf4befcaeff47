import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import type { Session } from "../session.js";
import type { ApprovalResponse } from "../runtime/approver.js";
import type { HttpApprover } from "./http-approver.js";
import type { EventHub } from "./event-hub.js";
import { DASHBOARD_HTML } from "./dashboard.js";
import { withSpecNames } from "./spec-names.js";

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
const AnswerBody = z.object({
  approved: z.boolean(),
  message: z.string().max(10_000).optional(),
  always: z.boolean().optional(),
  modifiedArgs: z.record(z.string(), z.unknown()).optional(),
});
const ApproveBody = AnswerBody.omit({ approved: true });
const RejectBody = z.object({ message: z.string().max(10_000).optional() });

export interface ApiContext {
  session: Session;
  approvals: HttpApprover;
  events: EventHub;
  maxBodyBytes?: number;
}

/** A request the API turns away, with the status and the `{ error }` it answers. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** For 405: the methods that are allowed. */
    readonly allow?: string,
  ) {
    super(message);
  }
}

/** Routes the JSON API and the dashboard page. */
export function apiHandler(context: ApiContext): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> {
  const { session, approvals, events } = context;
  const maxBody = context.maxBodyBytes ?? MAX_BODY_BYTES;
  // Calls in flight by id: a second call under the same id could not be told apart when answering.
  const running = new Set<string>();

  const routes = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const method = req.method ?? "GET";
    const path = url.pathname;

    if (path === "/" || path === "/index.html") {
      allow(method, ["GET", "HEAD"]);
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
      res.end(method === "HEAD" ? undefined : DASHBOARD_HTML);
      return;
    }
    if (path === "/api/tools") {
      allow(method, ["GET"]);
      const list = session.registry.list().map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
        effect: t.effect,
      }));
      return json(res, 200, list);
    }
    if (path === "/api/metrics") {
      allow(method, ["GET"]);
      return json(res, 200, session.runner.metrics.all());
    }
    if (path === "/api/events") {
      allow(method, ["GET"]);
      events.add(res);
      return;
    }
    if (path === "/api/approvals") {
      allow(method, ["GET"]);
      const list = approvals.pending().map((r) =>
        withSpecNames({
          toolCallId: r.toolCallId,
          tool: r.tool,
          args: r.args,
          effect: r.effect,
          reason: r.reason,
          requiresApproval: true,
          ...(r.preview !== undefined ? { preview: r.preview } : {}),
          ...(r.description !== undefined ? { description: r.description } : {}),
          ...(r.context !== undefined ? { context: r.context } : {}),
        }),
      );
      return json(res, 200, list);
    }
    if (path === "/api/calls") {
      allow(method, ["POST"]);
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
        return json(res, 200, withSpecNames(outcome));
      } finally {
        if (body.id !== undefined) running.delete(body.id);
      }
    }
    const match = /^\/api\/approvals\/([^/]+)(?:\/(approve|reject))?$/.exec(path);
    if (match) {
      allow(method, ["POST"]);
      let id: string;
      try {
        id = decodeURIComponent(match[1]!);
      } catch {
        throw new HttpError(400, "The approval id is not valid URL encoding.");
      }
      const raw = await readJson(req, maxBody, match[2] !== undefined);
      let response: ApprovalResponse;
      if (match[2] === "approve") {
        const b = parse(ApproveBody, raw);
        response = {
          approved: true,
          ...(b.message !== undefined ? { message: b.message } : {}),
          ...(b.always ? { always: true } : {}),
          ...(b.modifiedArgs ? { modifiedArgs: b.modifiedArgs } : {}),
        };
      } else if (match[2] === "reject") {
        const b = parse(RejectBody, raw);
        response = { approved: false, ...(b.message !== undefined ? { message: b.message } : {}) };
      } else {
        const b = parse(AnswerBody, raw);
        response = {
          approved: b.approved,
          ...(b.message !== undefined ? { message: b.message } : {}),
          ...(b.approved && b.always ? { always: true } : {}),
          ...(b.approved && b.modifiedArgs ? { modifiedArgs: b.modifiedArgs } : {}),
        };
      }
      if (!approvals.answer(id, response))
        throw new HttpError(404, `No pending approval with id ${id} (answered, timed out, or never asked).`);
      return json(res, 200, { ok: true, toolCallId: id, approved: response.approved });
    }
    throw new HttpError(404, `Not found: ${path}. The API is under /api (tools, calls, approvals, events, metrics).`);
  };

  return async (req, res, url) => {
    try {
      await routes(req, res, url);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      if (res.headersSent) return void res.destroy();
      if (err.allow) res.setHeader("Allow", err.allow);
      json(res, err.status, { error: err.message });
    }
  };
}

function allow(method: string, methods: string[]): void {
  if (methods.includes(method)) return;
  throw new HttpError(405, `Method ${method} is not allowed here; use ${methods.join(" or ")}.`, methods.join(", "));
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new HttpError(400, `Invalid request body: ${z.prettifyError(result.error).replace(/\n/g, "; ")}`);
}

/** Reads a JSON body up to `max` bytes; an empty body is `{}` when `emptyOk`. */
async function readJson(req: IncomingMessage, max: number, emptyOk = false): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  // The rest of an oversize body is read and dropped, so the client hears the 413 rather than a reset.
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) tooLarge = true;
    if (!tooLarge) chunks.push(chunk);
  }
  if (tooLarge) throw new HttpError(413, `Request body too large: the limit is ${max} bytes.`);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") {
    if (emptyOk) return {};
    throw new HttpError(400, "The request needs a JSON body.");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new HttpError(400, `The body is not valid JSON: ${(err as Error).message}`);
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
  });
  res.end(text);
}
