import { execFile } from "node:child_process";
import { mkdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileTimes, firstByPath, NEWEST_FIRST_UP_TO } from "../../../src/tools/search/file-order.js";
import { MatchedFiles, WALKED_HERE } from "../../../src/tools/search/matched-files.js";
import { walkFiles } from "../../../src/tools/search/walk.js";
import { tempDir } from "../../support/tools.js";

const execFileAsync = promisify(execFile);

let dir: ReturnType<typeof tempDir>;
beforeEach(() => (dir = tempDir()));
afterEach(() => dir.cleanup());

const ALL = { pattern: "**/*", cut: 0 };
const never = () => new AbortController().signal;

function write(files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir.dir, rel)), { recursive: true });
    writeFileSync(path.join(dir.dir, rel), text);
  }
}

/** What the main-thread walk finds, stat-ed and sorted here: the answer the threads must give. */
async function expected(root: string, match: (relative: string) => boolean, count: number, order: "modified" | "path") {
  const found = new FileTimes();
  await walkFiles(root, {
    signal: never(),
    onFile: (absolute) => {
      const relative = path.relative(dir.dir, absolute);
      if (match(relative)) found.add(relative, statSync(absolute).mtimeMs);
    },
  });
  const first =
    order === "modified"
      ? found.newest(count).map((f) => f.path)
      : firstByPath(
          found.newest(Infinity).map((f) => f.path),
          count,
        );
  return { total: found.size, order, first };
}

describe("MatchedFiles", () => {
  it("reads every listed file's time on the threads, in batches, and drops files that vanished", async () => {
    const names = Array.from({ length: 1500 }, (_, i) => `f${i}.txt`);
    names.forEach((name, i) => {
      writeFileSync(path.join(dir.dir, name), "");
      utimesSync(path.join(dir.dir, name), 1_000 + i, 1_000 + i);
    });
    const files = new MatchedFiles(dir.dir, ALL, 3, never());
    for (const name of names) files.add(name);
    files.add("gone.txt");
    expect(await files.done()).toEqual({ total: 1500, order: "modified", first: ["f1499.txt", "f1498.txt", "f1497.txt"] });
  });

  it("past NEWEST_FIRST_UP_TO matches, or when asked, answers in path order without reading a single file's time", async () => {
    // None of these files exists: a time read would drop it from the count.
    const names = Array.from({ length: NEWEST_FIRST_UP_TO + 1 }, (_, i) => `n${(i * 7919) % (NEWEST_FIRST_UP_TO + 1)}.txt`);
    const listed = async (count: number, order?: "modified" | "path", take = names.length) => {
      const files = new MatchedFiles(dir.dir, ALL, count, never(), order);
      for (const name of names.slice(0, take)) files.add(name);
      return files.done();
    };
    expect(await listed(3)).toEqual({ total: NEWEST_FIRST_UP_TO + 1, order: "path", first: ["n0.txt", "n1.txt", "n10.txt"] });
    expect(await listed(2, "path", 10)).toEqual({ total: 10, order: "path", first: firstByPath(names.slice(0, 10), 2) });
    expect(await listed(3, "modified")).toEqual({ total: 0, order: "modified", first: [] });
    expect(await listed(3, undefined, NEWEST_FIRST_UP_TO)).toEqual({ total: 0, order: "modified", first: [] });
  });

  it("walks on the threads as the main-thread walk does: ignore files at every level, nested repositories, links, hidden files", async () => {
    write({
      ".gitignore": "*.log\n!keep.log\n/build/\ncache/\n**/tmp-*\n",
      ".ignore": "secret/\n",
      "keep.log": "",
      "drop.log": "",
      "build/out.js": "",
      "lib/build/out.js": "",
      ".hidden/a.txt": "",
      ".env": "",
      "secret/s.txt": "",
      "src/.gitignore": "generated.ts\n",
      "src/.rgignore": "!generated.ts\nskip.*\n",
      "src/generated.ts": "",
      "src/skip.ts": "",
      "src/deep/cache/c.txt": "",
      "src/deep/tmp-1.txt": "",
      "sub/.git/HEAD": "",
      "sub/.gitignore": "only-here.txt\n",
      "sub/a.log": "",
      "sub/only-here.txt": "",
      "sub/nested/only-here.txt": "",
    });
    // Enough folders, under one, that most are walked on the threads, which share them out.
    for (let i = 0; i < WALKED_HERE / 5; i++) {
      for (let j = 0; j < 5; j++) write({ [`src/m${i}/d${j}/f.ts`]: "", [`src/m${i}/d${j}/x.log`]: "", [`src/m${i}/.ignore`]: "d4/\n" });
    }
    symlinkSync(path.join(dir.dir, "src"), path.join(dir.dir, "link-src"));
    symlinkSync(path.join(dir.dir, "keep.log"), path.join(dir.dir, "link-file"));
    let seconds = 0;
    const age = (relative: string) => {
      if (relative.includes("link-")) return;
      utimesSync(path.join(dir.dir, relative), 1_000 + (seconds % 97), 1_000 + (seconds % 97));
      seconds += 7;
    };
    await walkFiles(dir.dir, { signal: never(), onFile: (absolute) => age(path.relative(dir.dir, absolute)) });

    for (const [root, filter, count] of [
      [".", ALL, 5000],
      [".", ALL, 7],
      [".", { pattern: "**/*.{ts,log}", cut: 0 }, 50],
      ["src", { pattern: "m1*/**", cut: 4 }, 30],
      ["sub", ALL, 10],
    ] as const) {
      const absolute = path.join(dir.dir, root);
      const match = filter.pattern === "**/*" ? () => true : (await import("picomatch")).default(filter.pattern, { dot: true });
      for (const order of ["modified", "path"] as const) {
        const files = new MatchedFiles(dir.dir, filter, count, never(), order);
        files.walk(absolute);
        const found = await files.done();
        expect(found, `${root} ${filter.pattern} ${count} ${order}`).toEqual(
          await expected(absolute, (f) => match(f.slice(filter.cut)), count, order),
        );
      }
    }
    const everything = new MatchedFiles(dir.dir, ALL, 5000, never());
    everything.walk(dir.dir);
    const names = (await everything.done()).first;
    expect(names).toEqual(
      expect.arrayContaining(["keep.log", "lib/build/out.js", ".hidden/a.txt", ".env", "src/generated.ts", "sub/a.log"]),
    );
    for (const gone of [
      "drop.log",
      "build/out.js",
      "secret/s.txt",
      "src/skip.ts",
      "src/deep/cache/c.txt",
      "src/deep/tmp-1.txt",
      "sub/only-here.txt",
    ]) {
      expect(names).not.toContain(gone);
    }
    expect(names.filter((f) => f.startsWith("link-") || f.includes("/d4/") || f.startsWith("sub/.git/"))).toEqual([]);
  });

  it("a walk on the threads that finds more than NEWEST_FIRST_UP_TO files answers in path order unless asked for the newest", async () => {
    const over = NEWEST_FIRST_UP_TO + 100;
    // Made by another process: a loop here would hold the test worker on a busy machine.
    await execFileAsync(
      "sh",
      ["-c", `for d in $(seq 0 ${over / 50 - 1}); do mkdir d$d; (cd d$d && seq 0 49 | sed 's/^/f/' | xargs touch); done`],
      {
        cwd: dir.dir,
      },
    );
    utimesSync(path.join(dir.dir, "d7", "f9"), 4e9, 4e9);
    const walked = async (order?: "modified" | "path") => {
      const files = new MatchedFiles(dir.dir, ALL, 2, never(), order);
      files.walk(dir.dir);
      return files.done();
    };
    expect(await walked()).toEqual({ total: over, order: "path", first: ["d0/f0", "d0/f1"] });
    expect(await walked("modified")).toMatchObject({ total: over, order: "modified", first: ["d7/f9", expect.any(String)] });
  }, 60_000);

  it("fails as the main-thread walk does when the directory cannot be read", async () => {
    const files = new MatchedFiles(dir.dir, ALL, 10, never());
    const missing = path.join(dir.dir, "missing");
    const err = await walkFiles(missing, { signal: never(), onFile: () => {} }).catch((e: NodeJS.ErrnoException) => e);
    expect(() => files.walk(missing)).toThrow(expect.objectContaining({ code: (err as NodeJS.ErrnoException).code, path: missing }));
    files.close();
  });

  it("stops with CANCELLED when the call is cancelled", async () => {
    write({ "a/b.txt": "", "c.txt": "" });
    const controller = new AbortController();
    const files = new MatchedFiles(dir.dir, ALL, 10, controller.signal);
    files.walk(dir.dir);
    files.add("c.txt");
    controller.abort();
    await expect(files.done()).rejects.toMatchObject({ code: "CANCELLED" });
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
    const files = new FileTimes();
    paths.forEach((p, i) => files.add(p, times[i]!));
    for (const count of [1, 7, 100, 499, 500, 1999, 2000, 5000]) expect(files.newest(count)).toEqual(full.slice(0, count));
  });
});
