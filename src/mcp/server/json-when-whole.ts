import { isRecord } from "../../core/is-record.js";

/** Headers that describe an event stream, not its content: dropped when the answer is JSON. */
const STREAM_HEADERS = ["content-type", "cache-control", "connection", "x-accel-buffering"];

/**
 * A 2025-era session answers every request as an event stream (SSE), though most calls send
 * nothing before their result: the client then pays for the stream (a decoder and an event parser
 * over every byte, ~300 µs a read_file call in the 1.x SDK) where one JSON body would do. MCP
 * lets the server choose either. This waits for the stream's first event: when it is the response
 * to `requestId` and the stream ends there, the answer goes out as JSON; when anything else comes
 * first (progress, an approval question, the SDK's keep-alive after 15 s), the stream goes out as
 * it came, nothing lost — as the SDK's 2026-era handler does. An event with an id (resumable
 * streams) always stays a stream.
 */
export async function jsonWhenWhole(response: Response, requestId: string | number, signal: AbortSignal): Promise<Response> {
  if (!response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
  const reader = response.body.getReader();
  const cancel = () => {
    reader.cancel().catch(() => {});
  };
  signal.addEventListener("abort", cancel, { once: true });
  const chunks: Uint8Array[] = [];
  const decoder = new TextDecoder();
  let text = "";
  try {
    let end: number;
    while ((end = text.indexOf("\n\n")) < 0) {
      const { done, value } = await reader.read();
      if (done) return asStream(response, chunks, undefined);
      chunks.push(value);
      text += decoder.decode(value, { stream: true });
    }
    const answer = end + 2 === text.length ? soleResponse(text.slice(0, end), requestId) : undefined;
    if (answer === undefined) return asStream(response, chunks, reader);
    const next = await reader.read();
    if (!next.done) {
      chunks.push(next.value);
      return asStream(response, chunks, reader);
    }
    const headers = new Headers(response.headers);
    for (const name of STREAM_HEADERS) headers.delete(name);
    headers.set("content-type", "application/json");
    return new Response(answer, { status: response.status, headers });
  } catch {
    // The stream failed or was cancelled (the client went away): an empty stream says as much.
    return asStream(response, chunks, undefined);
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

/** The event's data when it is the response to `requestId` and nothing else (no id, one data line). */
function soleResponse(event: string, requestId: string | number): string | undefined {
  let data: string | undefined;
  for (const line of event.split("\n")) {
    if (line === "event: message") continue;
    if (!line.startsWith("data: ") || data !== undefined) return undefined;
    data = line.slice(6);
  }
  if (data === undefined) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (!isRecord(message) || message["jsonrpc"] !== "2.0" || message["id"] !== requestId) return undefined;
  return "result" in message || "error" in message ? data : undefined;
}

/** The stream as it came: what was read first, then the rest (`reader`, when it has more). */
function asStream(response: Response, chunks: Uint8Array[], reader: ReadableStreamDefaultReader<Uint8Array> | undefined): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      if (!reader) controller.close();
    },
    async pull(controller) {
      if (!reader) return;
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel(reason) {
      return reader?.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
