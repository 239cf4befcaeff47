import { randomUUID } from "node:crypto";
import type { ApprovalRequest, ApprovalResponse, Approver } from "../runtime/approver.js";
import { parseRule, type Rule } from "../runtime/rules.js";
import type { SharedRules } from "../runtime/shared-rules.js";
import type { DeskAnswer, DeskItem, SharedRule, Store } from "./store.js";

/*
 * The approval desk: calls that need a person wait in the store, where every dashboard and Emacs
 * session on it sees them, whichever process made the call. The process that made it waits for
 * the answer (woken by the store, and polling, so a lost wake-up only delays); a timeout or a
 * cancellation is itself a claim on the entry, so a person's answer and the clock cannot both win.
 */

export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;
/** How often a waiting call looks for its answer when no wake-up came. */
const POLL_MS = 500;
/** How often the rules people granted are read again when no change was announced. */
const RULES_POLL_MS = 1_000;

/** Events the desk adds to the runner's (sent on the same event stream). */
export type DeskEvent =
  | ({ type: "approval.requested"; id: string; askedAt: number; expiresAt: number } & ApprovalRequest)
  | {
      type: "approval.resolved";
      id: string;
      toolCallId: string;
      tool: string;
      approved: boolean;
      by: string;
      message?: string;
      always?: boolean;
      automatic?: boolean;
    };

export interface DeskOptions {
  /** An unanswered request is rejected after this long. Default 10 minutes. */
  timeoutMs?: number;
  /** Told of every request and answer of this process's calls (to publish them). */
  onEvent?: (event: DeskEvent) => void;
}

/** What answering an entry came to. */
export type AnswerOutcome =
  { ok: true; id: string; toolCallId: string; approved: boolean } | { ok: false; status: 404 | 409; error: string };

export class Desk {
  readonly store: Store;
  readonly timeoutMs: number;
  readonly #onEvent: ((event: DeskEvent) => void) | undefined;
  /** This process's waits, to reject them when it closes. */
  readonly #mine = new Set<string>();
  #closed: string | undefined;
  #registered: Promise<void> | undefined;
  #rules: Rule[] = [];
  #rulesTimer: NodeJS.Timeout | undefined;
  #unwatchRules: (() => void) | undefined;
  #rulesReady: Promise<void> | undefined;

  constructor(store: Store, options: DeskOptions = {}) {
    this.store = store;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    this.#onEvent = options.onEvent;
  }

  /** The approver to give the runner: each call waits at the desk. */
  readonly approver: Approver = (request, signal) => this.#ask(request, signal);

  /** Entries waiting for a person, oldest first (orphaned ones included and marked). */
  waiting(): Promise<DeskItem[]> {
    return this.store.waiting();
  }

  /**
   * Answers an entry by its desk id, or by its toolCallId when one entry has it. Exactly one answer
   * wins; a later one is told who answered first. An orphaned entry (its process is gone) can be
   * rejected, which clears it, but not approved: nothing would run it.
   */
  async answer(idOrCall: string, response: ApprovalResponse, by: string): Promise<AnswerOutcome> {
    const waiting = await this.store.waiting();
    let entry = waiting.find((w) => w.id === idOrCall);
    if (!entry) {
      const byCall = waiting.filter((w) => w.request.toolCallId === idOrCall);
      if (byCall.length > 1)
        return { ok: false, status: 409, error: `${byCall.length} calls with id ${idOrCall} are waiting; answer one by its desk id.` };
      entry = byCall[0];
    }
    if (!entry) {
      const kept = await this.store.answerOf(idOrCall);
      if (kept) return { ok: false, status: 409, error: alreadyAnswered(kept) };
      return { ok: false, status: 404, error: `No pending approval with id ${idOrCall} (answered, timed out, or never asked).` };
    }
    if (entry.orphaned && response.approved) {
      return {
        ok: false,
        status: 409,
        error: `The process that asked (${entry.instance}) is gone, so nothing would run this call; reject it to clear it.`,
      };
    }
    const claimed = await this.store.claim(entry.id, { response, by, at: Date.now() });
    if (claimed.won) {
      if (entry.orphaned) {
        await this.store.settle(entry.id);
        this.#emit({
          type: "approval.resolved",
          id: entry.id,
          toolCallId: entry.request.toolCallId,
          tool: entry.request.tool,
          approved: false,
          by,
        });
      }
      return { ok: true, id: entry.id, toolCallId: entry.request.toolCallId, approved: response.approved };
    }
    if (claimed.reason === "answered") return { ok: false, status: 409, error: alreadyAnswered(claimed.answer) };
    return { ok: false, status: 404, error: `No pending approval with id ${idOrCall} (answered, timed out, or never asked).` };
  }

  /** Rejects this process's waiting calls and every later one. */
  async close(message = "the approval desk closed before anyone answered"): Promise<void> {
    this.#closed = message;
    if (this.#rulesTimer) clearInterval(this.#rulesTimer);
    this.#unwatchRules?.();
    await Promise.allSettled(
      [...this.#mine].map((id) =>
        this.store.claim(id, { response: { approved: false, message, automatic: true }, by: "tackle", at: Date.now() }),
      ),
    );
  }

  /**
   * The "always" rules people granted at the desk, for the runner: read again when the store
   * announces a change, and every second regardless, so a rule saved on another instance applies
   * here within a second.
   */
  sharedRules(): SharedRules {
    this.#rulesReady ??= this.#followRules();
    return {
      list: () => this.#rules,
      ready: () => this.#rulesReady!,
      add: async (rules, origin) => {
        for (const rule of rules) {
          await this.store.addRule({
            rule: rule.source,
            origin: "approval",
            by: origin.by,
            ...(origin.tool ? { tool: origin.tool } : {}),
            ...(origin.toolCallId ? { toolCallId: origin.toolCallId } : {}),
          });
        }
        await this.#readRules();
      },
    };
  }

  /** The rules in force with their origin. */
  async rules(): Promise<SharedRule[]> {
    return this.store.rules();
  }

  async #followRules(): Promise<void> {
    this.#unwatchRules = this.store.onChange((what) => {
      if (what === "rules") void this.#readRules().catch(() => undefined);
    });
    this.#rulesTimer = setInterval(() => void this.#readRules().catch(() => undefined), RULES_POLL_MS);
    this.#rulesTimer.unref();
    await this.#readRules().catch(() => undefined);
  }

  async #readRules(): Promise<void> {
    const kept = await this.store.rules();
    const list: Rule[] = [];
    for (const r of kept) {
      try {
        list.push(parseRule(r.rule));
      } catch {
        // a rule this version cannot read grants nothing
      }
    }
    this.#rules = list;
  }

  async #ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse> {
    if (this.#closed) return { approved: false, message: this.#closed, automatic: true };
    this.#registered ??= this.store.register(false);
    const id = `desk_${randomUUID()}`;
    const askedAt = Date.now();
    const expiresAt = askedAt + this.timeoutMs;
    try {
      await this.#registered;
      await this.store.post({ id, request, instance: this.store.instance, askedAt, expiresAt });
    } catch (err) {
      return { approved: false, automatic: true, message: `the approval desk could not be reached (${(err as Error).message})` };
    }
    this.#mine.add(id);
    this.#emit({ type: "approval.requested", id, askedAt, expiresAt, ...request });
    let answer: DeskAnswer;
    try {
      answer = await this.#wait(id, expiresAt, signal);
    } finally {
      this.#mine.delete(id);
    }
    await this.store.settle(id).catch(() => undefined);
    const { response } = answer;
    this.#emit({
      type: "approval.resolved",
      id,
      toolCallId: request.toolCallId,
      tool: request.tool,
      approved: response.approved,
      by: answer.by,
      ...(response.message !== undefined ? { message: response.message } : {}),
      ...(response.always ? { always: true } : {}),
      ...(response.automatic ? { automatic: true } : {}),
    });
    return { ...response, ...(response.automatic ? {} : { by: answer.by, shared: true }) };
  }

  /** Waits for the entry's answer; the clock and a cancellation answer it themselves, through the same claim. */
  async #wait(id: string, expiresAt: number, signal: AbortSignal): Promise<DeskAnswer> {
    let wake: (() => void) | undefined;
    const unwatch = this.store.onChange((what) => {
      if (what === "desk") wake?.();
    });
    const onAbort = () => wake?.();
    signal.addEventListener("abort", onAbort);
    try {
      for (;;) {
        const found = await this.store.answerOf(id).catch(() => undefined);
        if (found) return found;
        const now = Date.now();
        const closing = this.#closed;
        if (signal.aborted || now >= expiresAt || closing) {
          const message = closing
            ? closing
            : signal.aborted
              ? "the call was cancelled while waiting for approval"
              : `nobody answered the approval request within ${spoken(this.timeoutMs)}`;
          const mine: DeskAnswer = { response: { approved: false, message, automatic: true }, by: "tackle", at: now };
          const claimed = await this.store.claim(id, mine).catch(() => ({ won: true as const }));
          // A person who answered in the same instant wins; the call then goes their way.
          if (claimed.won || claimed.reason !== "answered") return mine;
          return claimed.answer;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(POLL_MS, Math.max(0, expiresAt - now)));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    } finally {
      unwatch();
      signal.removeEventListener("abort", onAbort);
    }
  }

  #emit(event: DeskEvent): void {
    try {
      this.#onEvent?.(event);
    } catch {
      // observers' failures are theirs
    }
  }
}

function alreadyAnswered(answer: DeskAnswer): string {
  const what = answer.response.approved ? "approved" : "rejected";
  return `Already answered: ${what} by ${answer.by} at ${new Date(answer.at).toISOString()}.`;
}

function spoken(ms: number): string {
  const minutes = ms / 60_000;
  return minutes >= 1 ? `${Math.round(minutes)} minutes` : `${Math.round(ms / 1000)} seconds`;
}
