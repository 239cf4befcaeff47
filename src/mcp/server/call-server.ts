import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  isInputRequiredResult,
  specTypeSchemas,
  type CallToolRequest,
  type CallToolResult,
  type InputRequiredResult,
  type JSONRPCRequest,
  type Result,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { isRecord } from "../../core/is-record.js";
import { FIRST_MODERN_REVISION } from "./era-shortcut.js";

type CallHandler = (request: CallToolRequest, ctx: ServerContext) => Promise<CallToolResult | InputRequiredResult>;
type Wrapped = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/**
 * The SDK's low-level server, handing a plain tools/call straight to tackle's handler. The SDK
 * checks such a request against its schema twice, and tackle's result once more, some 35 µs of a
 * 500 µs file read. The runner checks the arguments against the tool's own schema, and a result of
 * text alone, as tackle builds it, needs no check; one carrying anything else (an image, a block a
 * library tool made) is still held to the SDK's schema (test/mcp/call-server.test.ts holds every
 * kind of result tackle makes to it).
 *
 * On the 2026-07-28 era a first request's input_required answer goes out as the handler made it:
 * the SDK would check that it asks for something and that the client declared what it asks for,
 * and tackle asks for one form elicitation, only of a client that declared one
 * (server-calls.ts, canElicitForm, by the SDK's own reading of a bare `elicitation: {}`).
 *
 * Everything else takes the SDK's way: other methods, a retry carrying a request state (the SDK
 * carries its input responses), and any request whose params hold more than a name, plain
 * arguments and a progress token, so one the SDK would refuse still gets the SDK's own error.
 */
export class CallServer extends Server {
  #onCall: CallHandler | undefined;

  /** Answers tools/call with `handler`. */
  onCall(handler: CallHandler): void {
    this.#onCall = handler;
    this.setRequestHandler("tools/call", handler);
  }

  /**
   * The SDK makes its "Connection closed" error at every close, for the requests that may still
   * wait on the connection. A 2026-era HTTP request gets a server of its own that closes once the
   * call is answered, with nothing waiting, and the stack trace the error captured was some 30 µs
   * of every such call. Errors made while the connection closes go without one.
   */
  protected override _onclose(): void {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super._onclose();
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  protected override _wrapHandler(method: string, handler: Wrapped): Wrapped {
    const checked = super._wrapHandler(method, handler);
    if (method !== "tools/call") return checked;
    return (request, ctx) => {
      const direct = this.#onCall;
      const params = request.params;
      if (!direct || !plainCall(params) || ctx.mcpReq.requestState() !== undefined) return checked(request, ctx);
      const modern = isModern(this);
      return direct({ method: "tools/call", params }, ctx).then((result) =>
        modern && isInputRequiredResult(result) ? result : checkedResult(result),
      );
    };
  }
}

/** Whether a server speaks the 2026-07-28 era or later with its client. */
export function isModern(server: Server): boolean {
  const version = server.getNegotiatedProtocolVersion();
  // Protocol revisions are dates; the first modern one is the first with input_required round trips.
  return version !== undefined && version >= FIRST_MODERN_REVISION;
}

/** Params the SDK's schema takes as they are: a name, arguments that are an object, at most a progress token besides. */
function plainCall(params: unknown): params is CallToolRequest["params"] {
  if (!isRecord(params) || typeof params["name"] !== "string") return false;
  for (const key in params) {
    if (key === "name") continue;
    if (key === "arguments" && isRecord(params[key])) continue;
    if (key === "_meta" && plainMeta(params[key])) continue;
    return false;
  }
  return true;
}

function plainMeta(meta: unknown): boolean {
  if (!isRecord(meta)) return false;
  for (const key in meta) {
    const token = meta[key];
    if (key !== "progressToken" || !(typeof token === "string" || Number.isSafeInteger(token))) return false;
  }
  return true;
}

/** A result of text blocks, an object of structured content and an error flag: all the schema allows. */
function plainResult(result: CallToolResult | InputRequiredResult): boolean {
  if (!("content" in result)) return false;
  for (const key in result) {
    const value = (result as Record<string, unknown>)[key];
    if (key === "content" && Array.isArray(value) && value.every(textBlock)) continue;
    if (key === "structuredContent" && isRecord(value)) continue;
    if (key === "isError" && typeof value === "boolean") continue;
    return false;
  }
  return true;
}

function textBlock(block: unknown): boolean {
  if (!isRecord(block) || block["type"] !== "text" || typeof block["text"] !== "string") return false;
  for (const key in block) if (key !== "type" && key !== "text") return false;
  return true;
}

/** The result as the SDK's way would answer it: held to the protocol's schema unless it is plainly valid. */
function checkedResult(result: CallToolResult | InputRequiredResult): Result {
  if (plainResult(result)) return result;
  const checked = specTypeSchemas.CallToolResult["~standard"].validate(result);
  if (checked.issues) {
    const at = (path: ReadonlyArray<PropertyKey | { key: PropertyKey }> = []) =>
      path.map((part) => String(typeof part === "object" ? part.key : part)).join(".");
    const message = checked.issues.map((issue) => `${at(issue.path)}: ${issue.message}`).join("; ");
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid tools/call result: ${message}`);
  }
  return checked.value;
}
