import { PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import { isRecord } from "../../core/is-record.js";

// Which era a posted message belongs to, for the common messages, without the SDK's whole
// classification (`isLegacyRequest`): ~90 µs of each request, mostly zod failing to read a request
// as a response, and for 2026-era traffic run again inside the modern handler. Each answers true
// only where `isLegacyRequest` certainly agrees (test/mcp/server/era-shortcut.test.ts holds them to
// it); false means "ask the SDK", never the other era.

/** The first protocol revision of the 2026 era, as the SDK compares revisions (as strings). */
export const FIRST_MODERN_REVISION = "2026-07-28";

/**
 * A single message with neither `result` nor `error`, other than `initialize`, whose params claim a
 * protocol version in `_meta`: modern, or malformed modern, which the modern handler answers too.
 */
export function surelyModern(body: unknown): boolean {
  if (!isRecord(body) || "result" in body || "error" in body || body["method"] === "initialize") return false;
  const params = body["params"];
  if (!isRecord(params)) return false;
  const meta = params["_meta"];
  return isRecord(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

/**
 * A well-formed JSON-RPC request or notification (nothing but `jsonrpc`, `id`, `method`, `params`)
 * with no `_meta` in its params, under no MCP-Protocol-Version header of the 2026 era: legacy.
 */
export function surelyLegacy(body: unknown, protocolVersionHeader: string | undefined): boolean {
  if (protocolVersionHeader !== undefined && protocolVersionHeader.replace(/^[\t ]+|[\t ]+$/g, "") >= FIRST_MODERN_REVISION) return false;
  if (!isRecord(body) || body["jsonrpc"] !== "2.0" || typeof body["method"] !== "string") return false;
  for (const key in body) if (key !== "jsonrpc" && key !== "id" && key !== "method" && key !== "params") return false;
  const id = body["id"];
  if (id !== undefined && typeof id !== "string" && !Number.isSafeInteger(id)) return false;
  const params = body["params"];
  return params === undefined || (isRecord(params) && !("_meta" in params));
}
