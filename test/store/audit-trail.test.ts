import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSession } from "../../src/session.js";
import { tempDir } from "../support/tools.js";

/* The audit trail a session keeps in its shared store, read back from the file store's audit.jsonl. */

const dirs: Array<{ cleanup(): void }> = [];
afterAll(() => dirs.forEach((d) => d.cleanup()));

interface Row {
  phase: string;
  toolCallId: string;
  tool: string;
  record: Record<string, unknown>;
}

describe("the session's audit trail", () => {
  it("has a start row before each call that runs and an end row for every call, a cached read included, by close", async () => {
    const d = tempDir();
    dirs.push(d);
    const ws = path.join(d.dir, "ws");
    const folder = path.join(d.dir, "store");
    mkdirSync(ws);
    writeFileSync(path.join(ws, "a.txt"), "alpha\n");
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
    const rows = readFileSync(path.join(folder, "audit.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Row);
    const phases = (id: string) => rows.filter((r) => r.toolCallId === id).map((r) => r.phase);
    expect(phases("r1")).toEqual(["start", "end"]);
    expect(phases("r2")).toEqual(["end"]);
    expect(phases("w1")).toEqual(["start", "end"]);
    expect(rows).toHaveLength(5);
    expect(rows.find((r) => r.phase === "end" && r.toolCallId === "r2")!.record).toMatchObject({ status: "success", cached: true });
    expect(JSON.stringify(rows)).not.toContain("sk-abcdefghijklmnop");
  });

  it("lets a process go on after closing a session that made calls, their end rows written", async () => {
    const d = tempDir();
    dirs.push(d);
    const ws = path.join(d.dir, "ws");
    mkdirSync(ws);
    writeFileSync(path.join(ws, "a.txt"), "alpha\n");
    const desk = { store: `file:${path.join(d.dir, "store")}` };
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
    expect(readFileSync(path.join(d.dir, "store", "audit.jsonl"), "utf8")).toMatch(/"phase":"end"/);
  }, 60_000);
});
