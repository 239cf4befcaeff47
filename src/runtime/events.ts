import type { ToolOutcome } from "../core/result.js";
import type { Progress } from "../core/tool.js";

/** Events a runner emits (spec 002's SSE events). */
export type ToolEvent =
  | { type: "tool.call"; toolCallId: string; tool: string; args: unknown; requiresApproval: boolean }
  | { type: "tool.approval"; toolCallId: string; tool: string; approved: boolean; approvedBy?: string; message?: string }
  | { type: "tool.output"; toolCallId: string; tool: string; chunk: string }
  | ({ type: "tool.progress"; toolCallId: string; tool: string } & Progress)
  | { type: "tool.result"; toolCallId: string; tool: string; outcome: ToolOutcome }
  | { type: "file.changed"; toolCallId: string; tool: string; path: string; operation: string }
  | { type: "agent.state"; state: "tool_execution" | "idle" };

export type ToolEventType = ToolEvent["type"];
export type ToolEventListener = (event: ToolEvent) => void;

/** A small synchronous emitter; a throwing listener never breaks a call. */
export class EventBus {
  readonly #listeners = new Map<string, Set<ToolEventListener>>();

  on(type: ToolEventType | "*", listener: ToolEventListener): () => void {
    let set = this.#listeners.get(type);
    if (!set) this.#listeners.set(type, (set = new Set()));
    set.add(listener);
    return () => set!.delete(listener);
  }

  emit(event: ToolEvent, extra?: ToolEventListener): void {
    const typed = this.#listeners.get(event.type);
    const any = this.#listeners.get("*");
    // Most calls have nobody listening but the caller's own callback, if that.
    if (!typed?.size && !any?.size) {
      if (extra) call(extra, event);
      return;
    }
    // A copy: a listener that subscribes or unsubscribes does not change who hears this event.
    for (const l of [...(typed ?? []), ...(any ?? []), ...(extra ? [extra] : [])]) call(l, event);
  }

  get hasListeners(): boolean {
    return this.#listeners.size > 0;
  }
}

function call(listener: ToolEventListener, event: ToolEvent): void {
  try {
    listener(event);
  } catch {
    // listeners are observers; their failures are theirs
  }
}
