import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ReadLedger } from "../../../src/runtime/read-ledger.js";
import type { ToolRunner } from "../../../src/runtime/runner.js";
import { makeRunner, makeSandbox, type Sandbox } from "./helpers.js";

let sb: Sandbox;
let runner: ToolRunner;
beforeEach(() => {
  sb = makeSandbox();
  runner = makeRunner(sb.ws, { approval: "all", reads: new ReadLedger() });
});
afterEach(async () => {
  await runner.close();
  sb.cleanup();
});

const at = (...p: string[]) => path.join(sb.ws, ...p);
const call = (name: string, args: Record<string, unknown>) => runner.run({ name, args });
const PATCH = (from: string, to: string) => `*** Begin Patch\n*** Update File: a.txt\n-${from}\n+${to}\n*** End Patch`;

describe("the stale-edit guard", () => {
  it("refuses edits and overwrites of a file never read, and allows them after read_file", async () => {
    writeFileSync(at("a.txt"), "one\n");
    for (const [name, args] of [
      ["edit_file", { path: "a.txt", old: "one", new: "two" }],
      ["multi_edit", { path: "a.txt", edits: [{ old: "one", new: "two" }] }],
      ["write_file", { path: "a.txt", content: "two\n" }],
    ] as const) {
      const out = await call(name, args);
      expect(out.status, name).toBe("error");
      expect(out.error?.code).toBe("STALE_FILE");
      expect(out.error?.message).toMatch(
        /^"a.txt" has not been read in this session\. Read it with read_file, then .* again .*Nothing was changed\.$/,
      );
    }
    expect(readFileSync(at("a.txt"), "utf8")).toBe("one\n");
    expect((await call("read_file", { path: "a.txt", limit: 1 })).status).toBe("success");
    expect((await call("edit_file", { path: "a.txt", old: "one", new: "two" })).status).toBe("success");
    // The model's own edit counts as seen: the next edit needs no new read.
    expect((await call("multi_edit", { path: "a.txt", edits: [{ old: "two", new: "three" }] })).status).toBe("success");
    expect((await call("write_file", { path: "a.txt", content: "four\n" })).status).toBe("success");
    expect(readFileSync(at("a.txt"), "utf8")).toBe("four\n");
  });

  it("refuses a file changed on disk since it was read, by another program, even one that sets its time back", async () => {
    writeFileSync(at("a.txt"), "one\n");
    await call("read_file", { path: "a.txt" });
    // A person edits it meanwhile, same size, and puts the modification time back.
    const before = new Date(Date.now() - 60_000);
    writeFileSync(at("a.txt"), "ONE\n");
    utimesSync(at("a.txt"), before, before);
    const out = await call("edit_file", { path: "a.txt", old: "ONE", new: "two" });
    expect(out.error?.code).toBe("STALE_FILE");
    expect(out.error?.message).toMatch(/^"a.txt" changed on disk since it was last read: it was modified at \d{4}-/);
    expect(readFileSync(at("a.txt"), "utf8")).toBe("ONE\n");
    // A shell command's change counts the same.
    execFileSync("sh", ["-c", "echo extra >> a.txt"], { cwd: sb.ws });
    await call("read_file", { path: "a.txt" });
    const grown = readFileSync(at("a.txt"), "utf8");
    writeFileSync(at("a.txt"), `${grown}more\n`);
    const again = await call("write_file", { path: "a.txt", content: "x\n" });
    expect(again.error?.message).toMatch(/changed on disk since it was last read \(\d+ bytes then, \d+ now\)/);
  });

  it("lets a person who sees the diff approve a stale edit, the preview saying so; rules and modes alone do not", async () => {
    const asked: Array<string | undefined> = [];
    const safe = makeRunner(sb.ws, {
      approval: "safe",
      reads: new ReadLedger(),
      rules: { allow: ["write_file(ruled.txt)"] },
      approver: async (r) => {
        asked.push(r.preview);
        return { approved: true };
      },
    });
    writeFileSync(at("a.txt"), "one\n");
    expect((await safe.run({ name: "edit_file", args: { path: "a.txt", old: "one", new: "two" } })).status).toBe("success");
    expect(asked[0]).toMatch(/^Note: a.txt has not been read in this session; the model has not seen what it holds now/);
    expect(asked[0]).toContain("+two");
    writeFileSync(at("ruled.txt"), "r\n");
    const ruled = await safe.run({ name: "write_file", args: { path: "ruled.txt", content: "x\n" } });
    expect(ruled.error?.code).toBe("STALE_FILE");
    expect(readFileSync(at("ruled.txt"), "utf8")).toBe("r\n");
    // New files need no read, and what the model wrote it knows.
    expect((await safe.run({ name: "write_file", args: { path: "new.txt", content: "fresh\n" } })).status).toBe("success");
    expect((await safe.run({ name: "edit_file", args: { path: "new.txt", old: "fresh", new: "edited" } })).status).toBe("success");
    expect(asked).toHaveLength(2);
    expect(asked[1]).not.toMatch(/^Note:/);
    await safe.close();
  });

  it("carries what was seen through appends to a known file and moves, and patches mark what they wrote", async () => {
    writeFileSync(at("a.txt"), "one\n");
    await call("read_file", { path: "a.txt" });
    expect((await call("append_file", { path: "a.txt", content: "two\n" })).status).toBe("success");
    expect((await call("move_file", { from: "a.txt", to: "b.txt" })).status).toBe("success");
    expect((await call("edit_file", { path: "b.txt", old: "two", new: "2" })).status).toBe("success");
    // apply_patch checks its own context lines, so it needs no read, and what it wrote counts as seen.
    writeFileSync(at("a.txt"), "alpha\n");
    expect((await call("apply_patch", { patch: PATCH("alpha", "beta") })).status).toBe("success");
    expect((await call("edit_file", { path: "a.txt", old: "beta", new: "gamma" })).status).toBe("success");
    // Appending to a file never read is allowed (nothing is overwritten), but does not make it known.
    writeFileSync(at("c.txt"), "c\n");
    expect((await call("append_file", { path: "c.txt", content: "d\n" })).status).toBe("success");
    expect((await call("edit_file", { path: "c.txt", old: "d", new: "e" })).error?.code).toBe("STALE_FILE");
  });

  it("is off without a ledger (a runner built by hand) and with reads: false", async () => {
    const off = makeRunner(sb.ws, { approval: "all", reads: false });
    writeFileSync(at("a.txt"), "one\n");
    expect((await off.run({ name: "edit_file", args: { path: "a.txt", old: "one", new: "two" } })).status).toBe("success");
    await off.close();
    const bare = makeRunner(sb.ws, { approval: "all" });
    expect((await bare.run({ name: "edit_file", args: { path: "a.txt", old: "two", new: "three" } })).status).toBe("success");
    await bare.close();
  });
});

describe("the read ledger", () => {
  it("counts a path it cannot stat (a link loop) as not seen, and never throws", () => {
    const loop = at("loop");
    symlinkSync(loop, loop);
    const ledger = new ReadLedger();
    expect(() => ledger.saw(loop)).not.toThrow();
    expect(ledger.staleness(loop)).toBeUndefined();
  });
});

describe("the stale-edit guard across tackle call processes", () => {
  const cli = path.resolve("dist/cli/main.cjs");
  const tackle = (...args: string[]) =>
    spawnSync(process.execPath, [cli, "call", ...args, "--approval", "all", "--workspace", sb.ws, "--json"], {
      encoding: "utf8",
      cwd: sb.ws,
    });

  it("remembers a read in one process for an edit in the next, and the configuration turns it off", () => {
    writeFileSync(at("a.txt"), "one\n");
    const refused = tackle("edit_file", "path=a.txt", "old=one", "new=two");
    expect(refused.status).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/has not been read in this session/);
    expect(tackle("read_file", "path=a.txt").status).toBe(0);
    const edited = tackle("edit_file", "path=a.txt", "old=one", "new=two");
    expect(edited.stderr).toBe("");
    expect(edited.status).toBe(0);
    expect(readFileSync(at("a.txt"), "utf8")).toBe("two\n");
    writeFileSync(at("b.txt"), "b\n");
    writeFileSync(at("tackle.config.json"), JSON.stringify({ staleEditGuard: false }));
    expect(tackle("edit_file", "path=b.txt", "old=b", "new=c").status).toBe(0);
  }, 60_000);
});
