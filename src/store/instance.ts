import { randomBytes } from "node:crypto";
import os from "node:os";

/** An instance silent for longer than this is gone: its waiting calls are orphaned. */
export const STALE_MS = 15_000;

/** Largest event kept whole; a larger one keeps its ids and says how much it held. */
export const MAX_EVENT_BYTES = 64 * 1024;

/** A store user's id: its host, its pid and a random part (pids are reused; one process may open two). */
export function instanceId(): string {
  return `${os.hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
}

/** Longest string kept whole in an oversized event. */
const MAX_EVENT_STRING = 8_000;

/**
 * An event made small enough to keep: long strings in an oversized one are cut (saying how much),
 * and one still too large keeps only who and what.
 */
export function boundedEvent(event: { type: string; data: unknown }): { type: string; data: unknown } {
  const text = JSON.stringify(event.data) ?? "null";
  if (Buffer.byteLength(text) <= MAX_EVENT_BYTES) return event;
  const cut = cutStrings(event.data, 0);
  if (Buffer.byteLength(JSON.stringify(cut) ?? "null") <= MAX_EVENT_BYTES) return { type: event.type, data: cut };
  const data = (event.data && typeof event.data === "object" ? event.data : {}) as Record<string, unknown>;
  const keep = ["toolCallId", "tool", "approved", "status"];
  return {
    type: event.type,
    data: { ...Object.fromEntries(keep.filter((k) => k in data).map((k) => [k, data[k]])), omitted: `${text.length} characters` },
  };
}

function cutStrings(value: unknown, depth: number): unknown {
  if (typeof value === "string")
    return value.length > MAX_EVENT_STRING
      ? `${value.slice(0, MAX_EVENT_STRING)}\n... (${value.length - MAX_EVENT_STRING} characters cut)`
      : value;
  if (depth > 6 || !value || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.slice(0, 200).map((v) => cutStrings(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v, depth + 1)]));
}

/** One line of the file store's events.jsonl. */
export function storedEventLine(event: { type: string; data: unknown }, instance: string, at: number): string {
  const line = JSON.stringify({ type: event.type, data: event.data, instance, at });
  // Most events are small: measured once, as the line they make.
  if (line.length <= MAX_EVENT_BYTES / 4 || Buffer.byteLength(line) <= MAX_EVENT_BYTES) return `${line}\n`;
  const e = boundedEvent(event);
  return `${JSON.stringify({ type: e.type, data: e.data, instance, at })}\n`;
}

/** Whether a process of this machine is alive (one of another user's counts). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether the instance `id` ran on this machine and its process is gone: known at once, not after its silence. */
export function goneHere(id: string): boolean {
  const [host, pid] = id.split(":");
  return host === os.hostname() && /^\d+$/.test(pid ?? "") && !processAlive(Number(pid));
}
