import { utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileTimes, ModifiedTimes } from "../../../src/tools/search/modified-times.js";
import { tempDir } from "../../support/tools.js";

let dir: ReturnType<typeof tempDir>;
beforeEach(() => (dir = tempDir()));
afterEach(() => dir.cleanup());

describe("ModifiedTimes", () => {
  it("reads every file's time on the stat threads, in batches, and drops files that vanished", async () => {
    const names = Array.from({ length: 1500 }, (_, i) => `f${i}.txt`);
    names.forEach((name, i) => {
      writeFileSync(path.join(dir.dir, name), "");
      utimesSync(path.join(dir.dir, name), 1_000 + i, 1_000 + i);
    });
    const times = new ModifiedTimes(dir.dir, new AbortController().signal);
    for (const name of names) times.add(name);
    times.add("gone.txt");
    const found = await times.done();
    expect(found.size).toBe(1500);
    expect(found.newest(3)).toEqual([
      { path: "f1499.txt", mtime: 2_499_000 },
      { path: "f1498.txt", mtime: 2_498_000 },
      { path: "f1497.txt", mtime: 2_497_000 },
    ]);
  });

  it("stops with CANCELLED when the call is cancelled", async () => {
    const controller = new AbortController();
    const times = new ModifiedTimes(dir.dir, controller.signal);
    times.add("a");
    controller.abort();
    await expect(times.done()).rejects.toMatchObject({ code: "CANCELLED" });
  });
});

describe("FileTimes.newest", () => {
  it("gives what a full sort gives, newest first and ties by path, for any count", () => {
    let seed = 3;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const paths = Array.from({ length: 2000 }, (_, i) => `p/${(i * 7919) % 2000}`);
    // Few distinct times, so ties cross the cut.
    const times = paths.map(() => Math.floor(random() * 40));
    const full = paths.map((p, i) => ({ path: p, mtime: times[i]! })).sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : 1));
    const files = new FileTimes(paths, times);
    for (const count of [1, 7, 100, 499, 500, 1999, 2000, 5000]) expect(files.newest(count)).toEqual(full.slice(0, count));
  });
});
