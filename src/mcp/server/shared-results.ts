import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/server";
import type { ToolOutcome } from "../../core/result.js";

/** A result made for an outcome, and what it was made from. */
interface Made {
  maker: object;
  content: string;
  blocks: ToolOutcome["blocks"];
  result: CallToolResult;
}

/** Results by their outcome's structured output, which the result cache hands back as it kept it. */
const madeFor = new WeakMap<object, Made>();
/**
 * Each shared result's JSON, kept from its second send on (0 before its first, 1 after it): most
 * results go out once, and their JSON would double what the result cache holds.
 */
const json = new WeakMap<object, string | 0 | 1>();

/**
 * The tools/call result for `outcome`: the one made before when the outcome is one the runner's
 * result cache handed back again (a success with the same structured output, text and blocks), else
 * `make()`'s. Each `maker` (a server, whose protocol era shapes results) gets its own.
 *
 * A shared result is frozen, so it stays what its JSON says; a file read again and again unchanged
 * is answered from JSON made once (answerLine), where serialising it was some 45 µs of a 450 µs MCP read.
 */
export function sharedResult(outcome: ToolOutcome, maker: object, make: () => CallToolResult): CallToolResult {
  const structured = outcome.structured;
  if (outcome.status !== "success" || !structured || typeof structured !== "object") return make();
  const made = madeFor.get(structured);
  if (made && made.maker === maker && made.content === outcome.content && made.blocks === outcome.blocks) return made.result;
  const result = make();
  Object.freeze(result);
  Object.freeze(result.content);
  for (const block of result.content) Object.freeze(block);
  json.set(result, 0);
  madeFor.set(structured, { maker, content: outcome.content, blocks: outcome.blocks, result });
  return result;
}

/**
 * A message as its line on the wire (`JSON.stringify(message)` and a newline), when it carries a
 * shared result sent before: that result's JSON is made once, the rest of the message each time.
 * Undefined for any other message, and for a shared result's first send.
 */
export function answerLine(message: JSONRPCMessage): string | undefined {
  const result = "result" in message ? message.result : undefined;
  if (!result || typeof result !== "object") return undefined;
  const kept = json.get(result);
  if (kept === undefined) return undefined;
  if (kept === 0) {
    json.set(result, 1);
    return undefined;
  }
  const text = kept === 1 ? JSON.stringify(result) : kept;
  if (kept === 1) json.set(result, text);
  let line = "{";
  for (const [key, value] of Object.entries(message)) {
    const part = key === "result" ? text : (JSON.stringify(value) as string | undefined);
    if (part === undefined) continue;
    line += `${line.length > 1 ? "," : ""}${JSON.stringify(key)}:${part}`;
  }
  return `${line}}\n`;
}
