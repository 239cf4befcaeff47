import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FileStore } from "../../src/store/file-store.js";
import { openStore } from "../../src/store/open-store.js";
import { tempDir } from "../support/tools.js";
import { storeContract } from "./contract.js";

const dirs: Array<{ cleanup(): void }> = [];
afterAll(() => dirs.forEach((d) => d.cleanup()));

function fresh() {
  const d = tempDir();
  dirs.push(d);
  return path.join(d.dir, "store");
}

describe("the file store", () => {
  storeContract(() => {
    const dir = fresh();
    return {
      open: async () => new FileStore(dir),
      auditRows: async () =>
        readFileSync(path.join(dir, "audit", "audit.jsonl"), "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as { phase: string; toolCallId: string; record: unknown }),
    };
  });

  it("makes its folder private, and refuses one another user could write", async () => {
    const at = fresh();
    const store = new FileStore(at);
    await store.register(false);
    expect(statSync(at).mode & 0o777).toBe(0o700);
    await store.close();
    const planted = fresh();
    mkdirSync(path.dirname(planted), { recursive: true });
    symlinkSync("/tmp", planted);
    await expect(new FileStore(planted).register(false)).rejects.toThrow(/not a private folder/);
  });

  it("a writer killed while appending leaves whole lines: none lost, none doubled, none half", async () => {
    const at = fresh();
    const store = new FileStore(at);
    await store.register(false);
    const script = `
      import { FileStore } from ${JSON.stringify(path.resolve("src/store/file-store.ts"))};
      const s = new FileStore(${JSON.stringify(at)});
      let n = 0;
      for (;;) { await s.publish([{ type: "tick", data: { n: n++, pad: "y".repeat(3000) } }]); if (n === 50) process.stdout.write("going\\n"); }
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve) => child.stdout.on("data", () => resolve()));
    // Two writers at once: this one too, while the other is killed mid-stream.
    const mine = Array.from({ length: 200 }, (_, i) => store.publish([{ type: "mine", data: { i } }]));
    child.kill("SIGKILL");
    await Promise.all(mine);
    await new Promise((r) => child.once("exit", r));
    // Linux may stop a write between pages when SIGKILL arrives: the killed writer's last line can be
    // torn. It is the only line that may be, it is the killed writer's, and it spoils no other line.
    const lines = readFileSync(path.join(at, "events.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l !== "");
    const parsed = lines.flatMap((l) => {
      try {
        return [JSON.parse(l) as { type: string; data: { n?: number; i?: number } }];
      } catch {
        expect(l.startsWith('{"type":"tick"'), l.slice(0, 80)).toBe(true);
        return [];
      }
    });
    expect(lines.length - parsed.length).toBeLessThanOrEqual(1);
    const ticks = parsed.filter((e) => e.type === "tick").map((e) => e.data.n);
    expect(ticks).toEqual(ticks.map((_, i) => i));
    expect(parsed.filter((e) => e.type === "mine").map((e) => e.data.i)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect((await store.eventsAfter(undefined, 1_000_000)).length).toBe(parsed.length);
    await store.close();
  });

  it("starts a new line after a torn one, so no event glues to what a killed writer left", async () => {
    const at = fresh();
    const store = new FileStore(at);
    await store.register(false);
    await store.publish([{ type: "before", data: {} }]);
    appendFileSync(path.join(at, "events.jsonl"), '{"type":"torn","data":{"pad":"yyy');
    await store.publish([{ type: "after", data: { ok: true } }]);
    const types = (await store.eventsAfter(undefined, 100)).map((e) => e.type);
    expect(types).toEqual(["before", "after"]);
    await store.close();
  });

  it("is the default, one folder per workspace under tackle's state folder", async () => {
    const ws = tempDir();
    dirs.push(ws);
    const a = await openStore("file", ws.dir);
    const b = await openStore("file", ws.dir);
    expect(a.location).toBe(b.location);
    expect(a.location).toContain(path.join("tackle", "desks"));
    await expect(openStore("file:relative", ws.dir)).rejects.toThrow(/absolute/);
    await expect(openStore("mysql://u:secret@h/db", ws.dir)).rejects.toThrow(/Unknown store "mysql:\/\/\.\.\."/);
    await a.close();
    await b.close();
  });

  it("begins events.jsonl again past its size; every writer follows, and a reader past the end starts the new one", async () => {
    const at = fresh();
    const a = new FileStore(at, { eventsKeptBytes: 4096 });
    const b = new FileStore(at, { eventsKeptBytes: 4096 });
    await b.publish([{ type: "first", data: {} }]);
    let cursor = await b.lastEventId();
    for (let i = 0; i < 40; i++) await a.publish([{ type: "tick", data: { i, pad: "z".repeat(200) } }]);
    cursor = (await b.eventsAfter(cursor, 1000)).at(-1)!.id;
    await b.publish([{ type: "from-b", data: {} }]);
    await a.publish([{ type: "from-a", data: {} }]);
    expect(statSync(path.join(at, "events.jsonl")).size).toBeLessThan(4096 + 1024);
    expect(statSync(path.join(at, "events.old.jsonl")).size).toBeGreaterThan(4096);
    const resumed = await b.eventsAfter(cursor, 1000);
    expect(resumed.map((e) => e.type)).toContain("from-b");
    expect(resumed.map((e) => e.type)).toContain("from-a");
    await a.close();
    await b.close();
  });
});
