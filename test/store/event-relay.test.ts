import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { afterAll, describe, expect, it } from "vitest";
import { EventRelay } from "../../src/store/event-relay.js";
import { FileStore } from "../../src/store/file-store.js";
import { tempDir } from "../support/tools.js";

/* What a process's events cost when no desk watches the store, and that a desk gets them when one does. */

const dirs: Array<{ cleanup(): void }> = [];
afterAll(() => dirs.forEach((d) => d.cleanup()));

v8.setFlagsFromString("--expose-gc");
const collect = vm.runInNewContext("gc") as () => void;

function store(): FileStore {
  const d = tempDir();
  dirs.push(d);
  return new FileStore(path.join(d.dir, "store"));
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

describe("EventRelay", () => {
  it("lets go of an event at once while it knows no desk watches, instead of holding the call's result for a batch", async () => {
    const s = store();
    await s.register(false);
    const relay = new EventRelay(s);
    // Until the relay has asked the store, an event waits in the batch; once it knows, none does.
    let freed = false;
    for (let attempt = 0; attempt < 2000 && !freed; attempt++) {
      let result: object | undefined = { content: "x".repeat(100_000) };
      const held = new WeakRef(result);
      relay.send("call.end", { outcome: result });
      result = undefined;
      // A WeakRef keeps its target until the current job ends; a batch waits 10 ms, far longer.
      await new Promise<void>((resolve) => setImmediate(resolve));
      collect();
      freed = held.deref() === undefined;
      if (!freed) await tick();
    }
    expect(freed).toBe(true);
    await relay.close();
    expect(await s.eventsAfter(undefined, 100)).toEqual([]);
    await s.close();
  });

  it("publishes in order while a desk watches", async () => {
    const s = store();
    await s.register(true);
    const relay = new EventRelay(s);
    for (let i = 0; i < 5; i++) relay.send("call.end", { n: i });
    await relay.close();
    const events = await s.eventsAfter(undefined, 100);
    expect(events.map((e) => (e.data as { n: number }).n)).toEqual([0, 1, 2, 3, 4]);
    await s.close();
  });
});
