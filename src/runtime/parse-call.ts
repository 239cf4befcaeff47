import { randomUUID } from "node:crypto";
import type { AnyTool, ToolAccess } from "../core/tool.js";
import type { ToolRegistry } from "../registry/registry.js";
import type { ToolOutcome } from "../core/result.js";
import { CallMemo } from "../core/call-memo.js";
import type { ToolCall } from "../core/tool-call.js";
import { failed } from "./outcomes.js";

/** A call whose tool was found and whose arguments validated, on its way through the runner. */
export interface Prepared {
  id: string;
  name: string;
  tool: AnyTool;
  args: Record<string, unknown>;
  started: number;
  /** How long a person took to answer, when one was asked: reported apart from the execution time. */
  approvalWaitMs?: number;
  /** What the call reads and writes, once worked out (runAll needs it before running). */
  access?: ToolAccess;
  /** What the tool's hooks worked out for these arguments, shared by all of them. */
  memo: CallMemo;
}

/**
 * The first step of a call: its tool by name (with the nearest names when there is none), its
 * arguments parsed (a JSON string is accepted), bounded in size, free of keys that reach a
 * prototype, and validated by the tool. An outcome instead when any of that fails (saying so when
 * tools are `stillArriving`, from MCP servers still connecting).
 */
export function parseCall(call: ToolCall, registry: ToolRegistry, maxArgsBytes: number, stillArriving = false): Prepared | ToolOutcome {
  const started = performance.now();
  const id = call.id ?? `call_${randomUUID()}`;
  const name = String(call.name ?? "");
  const tool = registry.get(name);
  if (!tool) {
    const near = registry.suggest(name);
    const hint = near.length
      ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?`
      : registry.size
        ? ` Available tools: ${registry.names().slice(0, 40).join(", ")}.`
        : " No tools are registered.";
    const later = stillArriving ? " Some MCP servers are still starting: their tools may join shortly; try again in a moment." : "";
    return failed(id, name, started, "UNKNOWN_TOOL", `There is no tool named "${name}".${later}${hint}`);
  }
  let args: unknown = call.args ?? {};
  if (typeof args === "string") {
    if (args.length > maxArgsBytes) return failed(id, name, started, "INVALID_ARGS", tooLarge(args.length, maxArgsBytes));
    try {
      args = args.trim() === "" ? {} : JSON.parse(args);
    } catch (err) {
      return failed(
        id,
        name,
        started,
        "INVALID_ARGS",
        `The arguments are not valid JSON (${(err as Error).message}); send one JSON object.`,
      );
    }
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return failed(
      id,
      name,
      started,
      "INVALID_ARGS",
      `The arguments must be a JSON object, not ${Array.isArray(args) ? "an array" : args === null ? "null" : typeof args}.`,
    );
  }
  const problem = checkArgs(args, maxArgsBytes);
  if (problem) return failed(id, name, started, "INVALID_ARGS", problem);
  const checked = tool.validate(args);
  if (!checked.valid) return failed(id, name, started, "INVALID_ARGS", `${checked.error} Fix the arguments and call ${name} again.`);
  return { id, name, tool, args: checked.value as Record<string, unknown>, started, memo: new CallMemo() };
}
/** Rejects keys that could pollute prototypes and arguments too big to be sensible. */
function checkArgs(args: object, maxBytes: number): string | undefined {
  let json: string;
  try {
    // Without a replacer: JSON.stringify's fast path, and it refuses cycles before the walk below.
    json = JSON.stringify(args);
  } catch (err) {
    return `The arguments cannot be serialised as JSON (${(err as Error).message}).`;
  }
  if (json.length > maxBytes) return tooLarge(json.length, maxBytes);
  const bad = pollutingKey(args);
  if (bad) return `The key "${bad}" is not allowed in arguments.`;
  return undefined;
}

/** The first key, at any depth, that could reach a prototype: `__proto__`, or `constructor` holding an object. */
function pollutingKey(args: object): string | undefined {
  // A stack, not recursion: JSON nests deeper than a JavaScript call stack reaches.
  const pending: unknown[] = [args];
  while (pending.length) {
    const value = pending.pop();
    if (typeof value !== "object" || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
      continue;
    }
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      if (key === "__proto__" || (key === "constructor" && typeof item === "object" && item !== null)) return key;
      pending.push(item);
    }
  }
  return undefined;
}

function tooLarge(size: number, max: number): string {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `The arguments are ${mb(size)}; the limit is ${mb(max)}. Send large content in parts (write_file, then append_file).`;
}
