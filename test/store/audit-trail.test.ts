import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, watch, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSession } from "../../src/session.js";
import { tempDir } from "../support/tools.js";

/* The audit trail a session keeps in its shared store, read back from the file store's audit/audit.jsonl. */

const dirs: Array<{ cleanup(): void }> = [];
afterAll(() => dirs.forEach((d) => d.cleanup()));

interface Row {
  phase: string;
  toolCallId: string;
  tool: string;
  record: Record<string, unknown>;
}

/** A workspace holding a.txt, and the folder its store goes in, in a new temporary folder. */
function setUp(): { dir: string; ws: string; folder: string } {
  const d = tempDir();
  dirs.push(d);
  const ws = path.join(d.dir, "ws");
  mkdirSync(ws);
  writeFileSync(path.join(ws, "a.txt"), "alpha\n");
  return { dir: d.dir, ws, folder: path.join(d.dir, "store") };
}

/** The rows of a trail file, oldest first. */
function rowsOf(file: string): Row[] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Row);
}

describe("the session's audit trail", () => {
  it("has a start row before each call that runs and an end row for every call, a cached read included, by close", async () => {
    const { ws, folder } = setUp();
    const session = await openSession({ workspace: ws, mcp: false, approval: "all", desk: { store: `file:${folder}` } });
    const first = await session.runner.run({ id: "r1", name: "read_file", args: { path: "a.txt" } });
    const again = await session.runner.run({ id: "r2", name: "read_file", args: { path: "a.txt" } });
    const wrote = await session.runner.run({
      id: "w1",
      name: "write_file",
      args: { path: "b.txt", content: "token=sk-abcdefghijklmnopqrstuvwxyz\n" },
    });
    expect([first.status, again.status, wrote.status]).toEqual(["success", "success", "success"]);
    expect(again.metadata?.cached).toBe(true);
    await session.close();
    const rows = rowsOf(path.join(folder, "audit", "audit.jsonl"));
    const phases = (id: string) => rows.filter((r) => r.toolCallId === id).map((r) => r.phase);
    expect(phases("r1")).toEqual(["start", "end"]);
    expect(phases("r2")).toEqual(["end"]);
    expect(phases("w1")).toEqual(["start", "end"]);
    expect(rows).toHaveLength(5);
    expect(rows.find((r) => r.phase === "end" && r.toolCallId === "r2")!.record).toMatchObject({ status: "success", cached: true });
    expect(JSON.stringify(rows)).not.toContain("sk-abcdefghijklmnop");
  });

  it("lets a process go on after closing a session that made calls, their end rows written", async () => {
    const { ws, folder } = setUp();
    const desk = { store: `file:${folder}` };
    const script = `
      import { openSession } from ${JSON.stringify(path.resolve("src/session.ts"))};
      const session = await openSession({ workspace: ${JSON.stringify(ws)}, mcp: false, desk: ${JSON.stringify(desk)} });
      await session.runner.run({ name: "read_file", args: { path: "a.txt" } });
      await session.close();
      await new Promise((r) => setTimeout(r, 20));
      process.stdout.write("went on");
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += String(c)));
    expect(await new Promise((r) => child.once("exit", r))).toBe(0);
    expect(out).toBe("went on");
    expect(readFileSync(path.join(folder, "audit", "audit.jsonl"), "utf8")).toMatch(/"phase":"end"/);
  }, 60_000);

  it("keeps its rows out of the store's top folder, which processes watch for rules and events", async () => {
    const { ws, folder } = setUp();
    const session = await openSession({ workspace: ws, mcp: false, approval: "all", desk: { store: `file:${folder}` } });
    try {
      await session.runner.run({ id: "r0", name: "read_file", args: { path: "a.txt" } });
      const seen: string[] = [];
      let sawSentinel!: () => void;
      const sentinel = new Promise<void>((resolve) => (sawSentinel = resolve));
      const watcher = watch(folder, (_type, name) => {
        seen.push(String(name));
        if (name === "sentinel") sawSentinel();
      });
      try {
        for (const id of ["r1", "r2", "w1"]) {
          const args = id === "w1" ? { path: "b.txt", content: "beta\n" } : { path: "a.txt" };
          await session.runner.run({ id, name: id === "w1" ? "write_file" : "read_file", args });
        }
        // Events come in order: once the sentinel's is in, any the calls made are too.
        writeFileSync(path.join(folder, "sentinel"), "");
        await sentinel;
      } finally {
        watcher.close();
      }
      expect(seen.filter((n) => n !== "sentinel")).toEqual([]);
    } finally {
      await session.close();
    }
    expect(rowsOf(path.join(folder, "audit", "audit.jsonl")).map((r) => r.toolCallId)).toEqual(["r0", "r0", "r1", "r2", "w1", "w1"]);
  });

  it("moves a trail an earlier version kept in the top folder into audit/, and never over one already there", async () => {
    const { dir, ws } = setUp();
    const earlier = `${JSON.stringify({ phase: "end", toolCallId: "old", tool: "read_file", record: {} })}\n`;
    const run = async (folder: string) => {
      const session = await openSession({ workspace: ws, mcp: false, desk: { store: `file:${folder}` } });
      await session.runner.run({ id: "new", name: "read_file", args: { path: "a.txt" } });
      await session.close();
    };
    const ids = (file: string) => rowsOf(file).map((r) => r.toolCallId);

    const moved = path.join(dir, "moved");
    mkdirSync(moved, { mode: 0o700 });
    writeFileSync(path.join(moved, "audit.jsonl"), earlier, { mode: 0o600 });
    await run(moved);
    expect(existsSync(path.join(moved, "audit.jsonl"))).toBe(false);
    expect(ids(path.join(moved, "audit", "audit.jsonl"))).toEqual(["old", "new", "new"]);

    const both = path.join(dir, "both");
    mkdirSync(path.join(both, "audit"), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(both, "audit.jsonl"), earlier, { mode: 0o600 });
    writeFileSync(path.join(both, "audit", "audit.jsonl"), earlier.replace('"old"', '"kept"'), { mode: 0o600 });
    await run(both);
    expect(ids(path.join(both, "audit.jsonl"))).toEqual(["old"]);
    expect(ids(path.join(both, "audit", "audit.jsonl"))).toEqual(["kept", "new", "new"]);
  });
});
