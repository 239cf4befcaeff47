import type { IncomingMessage, ServerResponse } from "node:http";

/** A JSON-RPC error as an HTTP response: what MCP clients expect even when no request was read. */
export function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** The request body as text, or undefined when it is larger than `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A Node request as the web `Request` the SDK's handlers take; `signal` aborts when the client goes away. */
export function toWebRequest(req: IncomingMessage, body: string | undefined, signal: AbortSignal, fallbackPath: string): Request {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
  }
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? fallbackPath}`, {
    method: req.method ?? "GET",
    headers,
    ...(body !== undefined ? { body } : {}),
    signal,
  });
}

/**
 * Writes a web Response to a Node response: an event stream (SSE) chunk by chunk as it comes, any
 * other body whole, with its headers in the same write (one packet for a JSON answer, where
 * streaming it sent the headers, the body and the end apart).
 */
export async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  if (!response.body) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  if (!headers["content-type"]?.startsWith("text/event-stream")) {
    let whole: Buffer;
    try {
      whole = Buffer.from(await response.arrayBuffer());
    } catch {
      res.destroy();
      return;
    }
    res.writeHead(response.status, { ...headers, "content-length": String(whole.length) });
    res.end(whole);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const reader = response.body.getReader();
  const cancel = () => {
    reader.cancel().catch(() => {});
  };
  res.on("close", cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off("close", cancel);
  }
}
