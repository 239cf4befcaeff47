import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../cli/run-cli.js";
import { tempDir } from "../../support/tools.js";
import { approveAll, makeRunner } from "./helpers.js";

let ws: ReturnType<typeof tempDir>;
let state: ReturnType<typeof tempDir>;
const saved = process.env.XDG_STATE_HOME;
beforeEach(() => {
  ws = tempDir();
  state = tempDir("tackle-state-");
  process.env.XDG_STATE_HOME = state.dir;
});
afterEach(() => {
  if (saved === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = saved;
  ws.cleanup();
  state.cleanup();
});
const at = (...p: string[]) => path.join(ws.dir, ...p);

describe("a path a move emptied is written only as an overwrite is: with approval in mode safe", () => {
  for (const second of ["write_file", "move_file"] as const) {
    it(`move_file away (auto), then ${second} into the old path asks`, async () => {
      writeFileSync(at("notes.txt"), "precious\n");
      writeFileSync(at("other.txt"), "other\n");
      const approver = approveAll();
      const runner = makeRunner(ws.dir, { approval: "safe", approver });
      const moved = await runner.run({ name: "move_file", args: { from: "notes.txt", to: "away.txt" } });
      expect(moved.status).toBe("success");
      expect(approver.requests).toHaveLength(0);
      const args = second === "write_file" ? { path: "notes.txt", content: "planted\n" } : { from: "other.txt", to: "notes.txt" };
      await runner.run({ name: second, args });
      expect(approver.requests).toHaveLength(1);
      expect(approver.requests[0]!.tool).toBe(second);
      if (second === "write_file") expect(approver.requests[0]!.preview).toContain("held a file until a move took it away");
      await runner.close();
    });
  }

  it("a folder moved away: a write anywhere below its old path asks; elsewhere a new file is still auto", async () => {
    mkdirSync(at("src"));
    writeFileSync(at("src", "main.ts"), "code\n");
    const approver = approveAll();
    const runner = makeRunner(ws.dir, { approval: "safe", approver });
    await runner.run({ name: "move_file", args: { from: "src", to: "old-src" } });
    await runner.run({ name: "write_file", args: { path: "src/main.ts", content: "x", createDirs: true } });
    expect(approver.requests.map((r) => r.tool)).toEqual(["write_file"]);
    await runner.run({ name: "write_file", args: { path: "fresh.txt", content: "x" } });
    expect(approver.requests).toHaveLength(1);
    await runner.close();
  });

  it("holds across processes: tackle call move_file, then tackle call write_file is refused without a person", async () => {
    writeFileSync(at("notes.txt"), "precious\n");
    const env = { XDG_STATE_HOME: state.dir };
    const moved = await runCli(["call", "move_file", "from=notes.txt", "to=away.txt"], { cwd: ws.dir, env });
    expect(moved.code).toBe(0);
    const written = await runCli(["call", "write_file", "path=notes.txt", "content=planted", "--json"], { cwd: ws.dir, env });
    expect(written.code).toBe(3);
    expect(JSON.parse(written.stdout)).toMatchObject({ status: "rejected" });
    expect(readFileSync(at("away.txt"), "utf8")).toBe("precious\n");
  });
});
