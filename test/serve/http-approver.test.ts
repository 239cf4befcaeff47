import { describe, expect, it } from "vitest";
import { HttpApprover, type ApprovalEvent } from "../../src/serve/http-approver.js";
import type { ApprovalRequest } from "../../src/runtime/approver.js";

const request = (id: string): ApprovalRequest => ({
  toolCallId: id,
  tool: "write_file",
  args: { path: "a" },
  effect: "write",
  reason: "it writes",
});

describe("HttpApprover", () => {
  it("queues a request, reports it and resolves with the answer", async () => {
    const events: ApprovalEvent[] = [];
    const q = new HttpApprover({ onEvent: (e) => events.push(e) });
    const answer = q.approver(request("a1"), new AbortController().signal);
    expect(q.pending().map((r) => r.toolCallId)).toEqual(["a1"]);
    expect(q.answer("nope", { approved: true })).toBe(false);
    expect(q.answer("a1", { approved: false, message: "no" })).toBe(true);
    expect(await answer).toEqual({ approved: false, message: "no" });
    expect(q.pending()).toEqual([]);
    expect(q.answer("a1", { approved: true })).toBe(false);
    expect(events.map((e) => e.type)).toEqual(["approval.requested", "approval.resolved"]);
  });

  it("refuses a second wait under an id already waiting", async () => {
    const q = new HttpApprover();
    const first = q.approver(request("d"), new AbortController().signal);
    const second = await q.approver(request("d"), new AbortController().signal);
    expect(second).toMatchObject({ approved: false, automatic: true });
    q.answer("d", { approved: true });
    expect(await first).toEqual({ approved: true });
  });

  it("rejects when the call is cancelled, when time runs out and when closed", async () => {
    const q = new HttpApprover({ timeoutMs: 50 });
    const controller = new AbortController();
    const cancelled = q.approver(request("c"), controller.signal);
    controller.abort();
    expect(await cancelled).toMatchObject({ approved: false, automatic: true, message: expect.stringMatching(/cancelled/) });
    expect(await q.approver(request("t"), new AbortController().signal)).toMatchObject({
      approved: false,
      message: expect.stringMatching(/nobody answered/),
    });
    const slow = new HttpApprover();
    const waiting = slow.approver(request("w"), new AbortController().signal);
    slow.close();
    expect(await waiting).toMatchObject({ approved: false, automatic: true });
    expect(await slow.approver(request("x"), new AbortController().signal)).toMatchObject({ approved: false });
  });
});
