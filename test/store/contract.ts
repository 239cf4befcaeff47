import { expect, it } from "vitest";
import type { DeskEntry, Store } from "../../src/store/store.js";

/*
 * What every store promises, run against each implementation: two store objects stand for two
 * tackle processes (or instances on two machines) sharing one store.
 */

export interface StoreFixture {
  /** A store for one more process on the same shared store. */
  open(): Promise<Store>;
  /** The audit trail's rows as the store keeps them, oldest first. */
  auditRows(): Promise<Array<{ phase: string; toolCallId: string; record: unknown }>>;
}

const entry = (id: string, instance: string, tool = "write_file"): DeskEntry => ({
  id,
  request: { toolCallId: `call-${id}`, tool, args: { path: "a.txt" }, effect: "write", reason: "it writes" },
  instance,
  askedAt: Date.now(),
  expiresAt: Date.now() + 60_000,
});

/** Resolves when `check` holds, looking again on each change the store announces and every 50 ms. */
async function eventually(store: Store, check: () => Promise<boolean>): Promise<void> {
  for (;;) {
    if (await check()) return;
    await new Promise<void>((resolve) => {
      const off = store.onChange(() => {
        off();
        resolve();
      });
      setTimeout(() => {
        off();
        resolve();
      }, 50);
    });
  }
}

/** Runs `test` with two processes' stores on one shared store, closing both after (closing twice is harmless). */
async function withTwo(fixture: () => StoreFixture, test: (a: Store, b: Store) => Promise<void>): Promise<void> {
  const f = fixture();
  const a = await f.open();
  const b = await f.open();
  try {
    await test(a, b);
  } finally {
    await a.close();
    await b.close();
  }
}

export function storeContract(fixture: () => StoreFixture): void {
  it("posts a call, lists it everywhere, and lets exactly one answer win; the second is told who won", () =>
    withTwo(fixture, async (a, b) => {
      await a.register(false);
      await a.post(entry("e1", a.instance));
      const seen = await b.waiting();
      expect(seen.map((w) => [w.id, w.orphaned, w.request.tool])).toEqual([["e1", false, "write_file"]]);
      expect(await b.claim("e1", { response: { approved: true }, by: "ann", at: Date.now() })).toEqual({ won: true });
      const second = await a.claim("e1", { response: { approved: false }, by: "bob", at: Date.now() });
      expect(second).toMatchObject({ won: false, reason: "answered", answer: { by: "ann", response: { approved: true } } });
      expect(await a.answerOf("e1")).toMatchObject({ by: "ann", response: { approved: true } });
      expect(await a.waiting()).toEqual([]);
      await a.settle("e1");
      expect(await b.claim("nope", { response: { approved: true }, by: "ann", at: 0 })).toEqual({ won: false, reason: "unknown" });
    }));

  it("100 entries answered twice at once: exactly 100 wins and 100 refusals", () =>
    withTwo(fixture, async (a, b) => {
      await a.register(false);
      await Promise.all(Array.from({ length: 100 }, (_, i) => a.post(entry(`d${i}`, a.instance))));
      const claims = await Promise.all(
        Array.from({ length: 100 }, (_, i) => [
          a.claim(`d${i}`, { response: { approved: true }, by: "ann", at: Date.now() }),
          b.claim(`d${i}`, { response: { approved: false }, by: "bob", at: Date.now() }),
        ]).flat(),
      );
      expect(claims.filter((c) => c.won)).toHaveLength(100);
      expect(claims.filter((c) => !c.won && c.reason === "answered")).toHaveLength(100);
      for (let i = 0; i < 100; i++) expect([claims[2 * i]!.won, claims[2 * i + 1]!.won].filter(Boolean)).toHaveLength(1);
    }));

  it("marks a call orphaned when the process that asked is gone, and never answers it by itself", async () => {
    const f = fixture();
    const a = await f.open();
    const b = await f.open();
    try {
      await a.register(false);
      await a.post(entry("o1", a.instance));
      await b.post(entry("o2", "elsewhere:1:dead"));
      const listed = await b.waiting();
      expect(listed.find((w) => w.id === "o1")?.orphaned).toBe(false);
      expect(listed.find((w) => w.id === "o2")?.orphaned).toBe(true);
      await a.close();
      expect((await b.waiting()).find((w) => w.id === "o1")?.orphaned).toBe(true);
      expect(await b.answerOf("o1")).toBeUndefined();
    } finally {
      await b.close();
    }
  });

  it("keeps rules with their origin, shared by every process, and removes one for all", () =>
    withTwo(fixture, async (a, b) => {
      const kept = await a.addRule({ rule: "write_file(notes.txt)", origin: "approval", by: "ann", tool: "write_file", toolCallId: "c1" });
      await b.addRule({ rule: "shell(git status)", origin: "person", by: "bob" });
      const seen = await b.rules();
      expect(seen.map((r) => [r.rule, r.origin, r.by])).toEqual([
        ["write_file(notes.txt)", "approval", "ann"],
        ["shell(git status)", "person", "bob"],
      ]);
      expect(seen[0]).toMatchObject({ tool: "write_file", toolCallId: "c1" });
      expect(await b.removeRule(kept.id, "bob")).toBe(true);
      expect(await b.removeRule(kept.id, "bob")).toBe(false);
      expect((await a.rules()).map((r) => r.rule)).toEqual(["shell(git status)"]);
    }));

  it("gives events growing ids, in order, and replays those after an id", () =>
    withTwo(fixture, async (a, b) => {
      const start = await b.lastEventId();
      await a.publish([
        { type: "tool.call", data: { toolCallId: "1" } },
        { type: "tool.result", data: { toolCallId: "1" } },
      ]);
      await b.publish([{ type: "tool.call", data: { toolCallId: "2", chunk: "x".repeat(200_000) } }]);
      const all = await a.eventsAfter(start, 100);
      expect(all.map((e) => [e.type, (e.data as { toolCallId: string }).toolCallId])).toEqual([
        ["tool.call", "1"],
        ["tool.result", "1"],
        ["tool.call", "2"],
      ]);
      expect(all[0]!.instance).toBe(a.instance);
      expect(a.isAfter(all[1]!.id, all[0]!.id)).toBe(true);
      expect(a.isAfter(all[0]!.id, all[1]!.id)).toBe(false);
      // An oversized event is kept, cut: its ids are still there to follow.
      expect(JSON.stringify(all[2]!.data).length).toBeLessThan(70_000);
      expect((await b.eventsAfter(all[0]!.id, 100)).map((e) => e.id)).toEqual([all[1]!.id, all[2]!.id]);
      expect(await b.eventsAfter(all[2]!.id, 100)).toEqual([]);
      expect(await b.lastEventId()).toBe(all[2]!.id);
      expect((await b.eventsAfter(start, 1)).map((e) => e.id)).toEqual([all[0]!.id]);
    }));

  it("wakes another process when an answer arrives", () =>
    withTwo(fixture, async (a, b) => {
      await a.register(false);
      await a.post(entry("w1", a.instance));
      const woken = new Promise<void>((resolve) => {
        const off = a.onChange((what) => {
          if (what !== "desk") return;
          off();
          resolve();
        });
      });
      // The watch may take a moment to start: the answer comes once it is there.
      await new Promise((r) => setTimeout(r, 100));
      await b.claim("w1", { response: { approved: true }, by: "ann", at: Date.now() });
      await woken;
      await eventually(a, async () => (await a.answerOf("w1")) !== undefined);
    }));

  it("knows which instances are alive and which serve a desk", async () => {
    const f = fixture();
    const a = await f.open();
    const b = await f.open();
    try {
      await a.register(true);
      await b.register(false);
      const all = await a.instances();
      expect(all.find((i) => i.id === a.instance)?.desk).toBe(true);
      expect(all.find((i) => i.id === b.instance)?.desk).toBe(false);
      await a.close();
      expect((await b.instances()).some((i) => i.id === a.instance)).toBe(false);
    } finally {
      await b.close();
    }
  });

  it("appends to the audit trail, several rows at once in their order", async () => {
    const f = fixture();
    const a = await f.open();
    try {
      await a.audit({ phase: "start", toolCallId: "c", tool: "write_file", record: { args: { path: "x" } } });
      await a.audit({ phase: "end", toolCallId: "c", tool: "write_file", record: { status: "success" } });
      await a.audit(
        { phase: "start", toolCallId: "r", tool: "read_file", record: { args: { path: "y" } } },
        { phase: "end", toolCallId: "r", tool: "read_file", record: { status: "success" } },
      );
      await a.audit();
      const rows = await f.auditRows();
      expect(rows.map((r) => `${r.toolCallId} ${r.phase}`)).toEqual(["c start", "c end", "r start", "r end"]);
      expect(rows[2]!.record).toEqual({ args: { path: "y" } });
    } finally {
      await a.close();
    }
  });
}
