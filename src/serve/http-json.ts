import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";

/** A request the API turns away, with the status and the `{ error }` it answers. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** For 405: the methods that are allowed. */
    readonly allow?: string,
  ) {
    super(message);
  }
}

/** Refuses (405) a method the route does not take. */
export function allow(method: string, methods: string[]): void {
  if (methods.includes(method)) return;
  throw new HttpError(405, `Method ${method} is not allowed here; use ${methods.join(" or ")}.`, methods.join(", "));
}

/** The body checked against `schema`, or a 400 naming what is wrong. */
export function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new HttpError(400, `Invalid request body: ${z.prettifyError(result.error).replace(/\n/g, "; ")}`);
}

/** Reads a JSON body up to `max` bytes; an empty body is `{}` when `emptyOk`. */
export async function readJson(req: IncomingMessage, max: number, emptyOk = false): Promise<unknown> {
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

/** Answers `body` as JSON, never cached. */
export function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
  });
  res.end(text);
}
