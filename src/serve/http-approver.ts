import type { ApprovalRequest, ApprovalResponse, Approver } from "../runtime/approver.js";

/** Events the approval queue adds to the runner's (sent on the same event stream). */
export type ApprovalEvent =
  | ({ type: "approval.requested" } & ApprovalRequest)
  | {
      type: "approval.resolved";
      toolCallId: string;
      tool: string;
      approved: boolean;
      message?: string;
      always?: boolean;
      automatic?: boolean;
    };

export interface HttpApproverOptions {
  /** An unanswered request is rejected after this long. Default 10 minutes. */
  timeoutMs?: number;
  /** Told of every request and answer. */
  onEvent?: (event: ApprovalEvent) => void;
}

interface Pending {
  request: ApprovalRequest;
  /** When the request arrived and when it will be rejected unanswered (epoch ms). */
  askedAt: number;
  expiresAt: number;
  settle: (response: ApprovalResponse) => void;
}

/** A waiting request with its clock, so a page can show how long is left. */
export interface WaitingApproval {
  request: ApprovalRequest;
  askedAt: number;
  expiresAt: number;
}

export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

/**
 * A queue of approval requests answered over HTTP: each call that needs a person waits here
 * (keyed by its toolCallId) until someone answers through the API, the wait times out, the call
 * is abandoned, or the server closes.
 */
export class HttpApprover {
  readonly #pending = new Map<string, Pending>();
  readonly #timeoutMs: number;
  readonly #onEvent: ((event: ApprovalEvent) => void) | undefined;
  #closed: string | undefined;

  constructor(options: HttpApproverOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    this.#onEvent = options.onEvent;
  }

  /** The function to hand the runner. */
  readonly approver: Approver = (request, signal) => this.#ask(request, signal);

  /** Requests waiting for a person, oldest first. */
  pending(): ApprovalRequest[] {
    return [...this.#pending.values()].map((p) => p.request);
  }

  /** Requests waiting for a person with when they arrived and when they expire, oldest first. */
  waiting(): WaitingApproval[] {
    return [...this.#pending.values()].map(({ request, askedAt, expiresAt }) => ({ request, askedAt, expiresAt }));
  }

  /** How long an unanswered request waits before it is rejected. */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  has(toolCallId: string): boolean {
    return this.#pending.has(toolCallId);
  }

  /** Answers a pending request; false when there is none with this id (answered, timed out, unknown). */
  answer(toolCallId: string, response: ApprovalResponse): boolean {
    const entry = this.#pending.get(toolCallId);
    if (!entry) return false;
    entry.settle(response);
    return true;
  }

  /** Rejects everything pending and every later request. */
  close(message = "the approval server closed before anyone answered"): void {
    this.#closed = message;
    for (const entry of [...this.#pending.values()]) entry.settle({ approved: false, message, automatic: true });
  }

  #ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse> {
    if (this.#closed) return Promise.resolve({ approved: false, message: this.#closed, automatic: true });
    if (this.#pending.has(request.toolCallId)) {
      // Two waits under one id could not be told apart by whoever answers.
      return Promise.resolve({
        approved: false,
        message: `another call with id ${request.toolCallId} is already waiting for approval; use a unique id`,
        automatic: true,
      });
    }
    return new Promise<ApprovalResponse>((resolve) => {
      const finish = (response: ApprovalResponse) => {
        if (this.#pending.get(request.toolCallId) !== entry) return;
        this.#pending.delete(request.toolCallId);
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.#emit({
          type: "approval.resolved",
          toolCallId: request.toolCallId,
          tool: request.tool,
          approved: response.approved,
          ...(response.message !== undefined ? { message: response.message } : {}),
          ...(response.always ? { always: true } : {}),
          ...(response.automatic ? { automatic: true } : {}),
        });
        resolve(response);
      };
      const askedAt = Date.now();
      const entry: Pending = { request, askedAt, expiresAt: askedAt + this.#timeoutMs, settle: finish };
      const minutes = this.#timeoutMs / 60_000;
      const timer = setTimeout(
        () =>
          finish({
            approved: false,
            message:
              `nobody answered the approval request within ` +
              `${minutes >= 1 ? `${Math.round(minutes)} minutes` : `${Math.round(this.#timeoutMs / 1000)} seconds`}`,
            automatic: true,
          }),
        this.#timeoutMs,
      );
      timer.unref?.();
      const onAbort = () => finish({ approved: false, message: "the call was cancelled while waiting for approval", automatic: true });
      this.#pending.set(request.toolCallId, entry);
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.#emit({ type: "approval.requested", ...request });
    });
  }

  #emit(event: ApprovalEvent): void {
    try {
      this.#onEvent?.(event);
    } catch {
      // observers' failures are theirs
    }
  }
}
