import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/server";
import type { ToolOutcome } from "../../core/result.js";

/** A result made for an outcome, and what it was made from. */
interface Made {
  maker: object;
  tool: string;
  content: string;
  blocks: ToolOutcome["blocks"];
  result: CallToolResult;
}

/** Results by their outcome's structured output, which the result cache hands back as it kept it. */
const madeFor = new WeakMap<object, Made>();
/** Each shared result's JSON, made the first time it is sent. */
const json = new WeakMap<object, string | undefined>();

/**
 * The tools/call result for `outcome`: when the runner's result cache answered the call, the result
 * made before for what it kept (the same tool, structured output, text and blocks), else
 * `make()`'s. Each `maker` (a server, whose protocol era shapes results) gets its own.
 *
 * A shared result is frozen, so it stays what its JSON says: a file read again and again unchanged
 * is answered from JSON made once (messageJson), where serialising it was some 45 µs of a 450 µs MCP
 * read. Only what the cache kept and handed back is shared (the tool's answer as it made it, asked
 * for again), so a file read once costs nothing more.
 */
export function sharedResult(outcome: ToolOutcome, maker: object, make: () => CallToolResult): CallToolResult {
  const structured = outcome.structured;
  const fromCache = outcome.status === "success" && outcome.metadata?.["cached"] === true;
  if (!fromCache || !structured || typeof structured !== "object") return make();
  const made = madeFor.get(structured);
  if (made?.maker === maker && made.tool === outcome.toolName && made.content === outcome.content && made.blocks === outcome.blocks)
    return made.result;
  const result = make();
  Object.freeze(result);
  Object.freeze(result.content);
  for (const block of result.content) Object.freeze(block);
  json.set(result, undefined);
  madeFor.set(structured, { maker, tool: outcome.toolName, content: outcome.content, blocks: outcome.blocks, result });
  return result;
}

/**
 * A message's JSON (what `JSON.stringify(message)` makes) in the pieces it is written in: a shared
 * result's JSON, made once, apart from the rest of the message, so the two are written as they are
 * rather than joined into one more copy of the answer. Any other message is one piece.
 */
export function messageJson(message: JSONRPCMessage): string[] {
  const result = "result" in message ? message.result : undefined;
  if (!result || typeof result !== "object" || !json.has(result)) return [JSON.stringify(message)];
  let text = json.get(result);
  if (text === undefined) {
    text = JSON.stringify(result);
    json.set(result, text);
  }
  const pieces: string[] = [];
  let piece = "{";
  let first = true;
  for (const [key, value] of Object.entries(message)) {
    const part = key === "result" ? text : (JSON.stringify(value) as string | undefined);
    if (part === undefined) continue;
    piece += `${first ? "" : ","}${JSON.stringify(key)}:`;
    first = false;
    if (key === "result") {
      pieces.push(piece, text);
      piece = "";
    } else piece += part;
  }
  pieces.push(`${piece}}`);
  return pieces;
}
