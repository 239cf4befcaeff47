import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../../src/runtime/approver.js";
import { parseRule } from "../../src/runtime/rules.js";
import { Desk, type DeskEvent } from "../../src/store/desk.js";
import { FileStore } from "../../src/store/file-store.js";
import { tempDir } from "../support/tools.js";

/* The desk over the file store: two Desk objects stand for two tackle processes on one workspace. */

const dirs: Array<{ cleanup(): void }> = [];
afterAll(() => dirs.forEach((d) => d.cleanup()));

function pair(timeoutMs?: number) {
  const d = tempDir();
  dirs.push(d);
  const folder = path.join(d.dir, "desk");
  const events: DeskEvent[] = [];
  const asking = new Desk(new FileStore(folder), { ...(timeoutMs ? { timeoutMs } : {}), onEvent: (e) => events.push(e) });
  const answering = new Desk(new FileStore(folder));
  return { asking, answering, events };
}

const request = (toolCallId: string, file = "a.txt"): ApprovalRequest => ({
  toolCallId,
  tool: "write_file",
  args: { path: file },
  effect: "write",
  reason: "it writes",
  alwaysRules: ["write_file(a.txt)"],
});

async function waitingOn(desk: Desk, count = 1) {
  for (;;) {
    const list = await desk.waiting();
    if (list.length >= count) return list;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function close(...desks: Desk[]) {
  for (const d of desks) {
    await d.close();
    await d.store.close();
  }
}

describe("the approval desk", () => {
  it("a call waits until a person in another process answers; the answer carries who gave it", async () => {
    const { asking, answering, events } = pair();
    const answer = asking.approver(request("c1"), new AbortController().signal);
    const [entry] = await waitingOn(answering);
    expect(entry).toMatchObject({ request: { toolCallId: "c1" }, orphaned: false, instance: asking.store.instance });
    expect(await answering.answer("c1", { approved: true, always: true }, "ann")).toMatchObject({ ok: true, id: entry!.id });
    expect(await answer).toEqual({ approved: true, always: true, by: "ann", shared: true });
    expect(events.map((e) => e.type)).toEqual(["approval.requested", "approval.resolved"]);
    expect(events[1]).toMatchObject({ by: "ann", approved: true, always: true });
    expect(await answering.answer(entry!.id, { approved: false }, "bob")).toMatchObject({ ok: false, status: 409 });
    expect(await answering.answer("nothing", { approved: false }, "bob")).toMatchObject({ ok: false, status: 404 });
    await close(asking, answering);
  });

  it("two waiting calls with one toolCallId are answered by their desk ids", async () => {
    const { asking, answering } = pair();
    const first = asking.approver(request("same", "one.txt"), new AbortController().signal);
    const second = asking.approver(request("same", "two.txt"), new AbortController().signal);
    const listed = await waitingOn(answering, 2);
    const a = listed.find((w) => w.request.args.path === "one.txt");
    const b = listed.find((w) => w.request.args.path === "two.txt");
    expect(await answering.answer("same", { approved: true }, "ann")).toMatchObject({ ok: false, status: 409 });
    await answering.answer(a!.id, { approved: true }, "ann");
    await answering.answer(b!.id, { approved: false, message: "no" }, "ann");
    expect((await first).approved).toBe(true);
    expect(await second).toMatchObject({ approved: false, message: "no" });
    await close(asking, answering);
  });

  it("rejects on its own when time runs out, when the call is cancelled and when it closes; a late answer is told", async () => {
    const { asking, answering } = pair(300);
    expect(await asking.approver(request("t"), new AbortController().signal)).toMatchObject({
      approved: false,
      automatic: true,
      message: expect.stringMatching(/nobody answered/),
    });
    expect(await answering.answer("t", { approved: true }, "ann")).toMatchObject({ ok: false });
    const controller = new AbortController();
    const cancelled = asking.approver(request("c"), controller.signal);
    await waitingOn(answering);
    controller.abort();
    expect(await cancelled).toMatchObject({ approved: false, automatic: true, message: expect.stringMatching(/cancelled/) });
    await close(answering);
    const { asking: other, answering: person } = pair();
    const open = other.approver(request("o"), new AbortController().signal);
    await waitingOn(person);
    await other.close();
    expect(await open).toMatchObject({ approved: false, automatic: true });
    expect(await other.approver(request("after"), new AbortController().signal)).toMatchObject({ approved: false });
    await asking.store.close();
    await other.store.close();
    await close(person);
  });

  it("rules granted at the desk reach every process's runner within a second", async () => {
    const { asking, answering } = pair();
    const here = asking.sharedRules();
    const there = answering.sharedRules();
    await Promise.all([here.ready(), there.ready()]);
    await here.add([parseRule("write_file(a.txt)")], { by: "ann", tool: "write_file", toolCallId: "c9" });
    for (;;) {
      if (there.list().some((r) => r.source === "write_file(a.txt)")) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await answering.rules()).toMatchObject([{ rule: "write_file(a.txt)", origin: "approval", by: "ann", toolCallId: "c9" }]);
    await close(asking, answering);
  });
});
