import { z } from "zod";
import type { CallHistory } from "./call-history.js";
import { HttpError, json, parse } from "./http-json.js";
import type { Route } from "./route.js";

const HistoryParams = z.object({
  tool: z.string().min(1).max(200).optional(),
  status: z.enum(["success", "error", "rejected", "cancelled", "running", "waiting"]).optional(),
  q: z.string().max(500).optional(),
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

/**
 * `GET /api/history?tool=&status=&q=&before=&limit=`: calls newest first, a page at a time
 * (`next` is the `before` of the following page); `GET /api/history/:seq`: one call in full.
 */
export function historyRoutes(history: CallHistory): Route[] {
  return [
    {
      path: "/api/history",
      methods: ["GET"],
      handle: async (_req, res, url) => {
        const p = parse(HistoryParams, Object.fromEntries(url.searchParams));
        // Not history.ready: a page waits only for the part of the log it reads.
        const page = await history.page({
          ...(p.tool !== undefined ? { tool: p.tool } : {}),
          ...(p.status !== undefined ? { status: p.status } : {}),
          ...(p.q !== undefined ? { text: p.q } : {}),
          ...(p.before !== undefined ? { before: p.before } : {}),
          ...(p.limit !== undefined ? { limit: p.limit } : {}),
        });
        json(res, 200, { ...page, tools: history.tools() });
      },
    },
    {
      path: /^\/api\/history\/(\d+)$/,
      methods: ["GET"],
      handle: async (_req, res, _url, [seq]) => {
        const detail = await history.detail(Number(seq));
        if (!detail) throw new HttpError(404, `No call ${seq} in the history.`);
        json(res, 200, detail);
      },
    },
  ];
}
