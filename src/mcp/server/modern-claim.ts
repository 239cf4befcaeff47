import { PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";

/**
 * Whether a posted JSON body is certainly not 2025-era traffic, decided without the SDK's whole
 * classification (`isLegacyRequest`, which the modern handler runs again inside: ~90 µs of each
 * request, mostly zod failing to read a request as a response). A single message with neither
 * `result` nor `error`, other than `initialize`, whose params claim a protocol version in `_meta`
 * is modern or malformed-modern, and the modern handler answers both; anything else is left to
 * `isLegacyRequest`. False never means legacy.
 */
export function surelyModern(body: unknown): boolean {
  if (!isObject(body) || "result" in body || "error" in body || body["method"] === "initialize") return false;
  const params = body["params"];
  if (!isObject(params)) return false;
  const meta = params["_meta"];
  return isObject(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
