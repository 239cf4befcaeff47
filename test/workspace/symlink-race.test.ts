import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../src/registry/registry.js";
import { ToolRunner } from "../../src/runtime/runner.js";
import { FILE_TOOLS } from "../../src/tools/fs/index.js";
import { tempDir } from "../support/tools.js";

let base: ReturnType<typeof tempDir>;
let ws: string;
let outside: string;

beforeEach(() => {
  base = tempDir("tackle-race-");
  ws = path.join(base.dir, "ws");
  outside = path.join(base.dir, "outside");
  mkdirSync(path.join(ws, "sub"), { recursive: true });
  mkdirSync(outside);
  symlinkSync(outside, path.join(ws, "sub_link"));
  writeFileSync(path.join(ws, "seed.txt"), "seed\n");
});
afterEach(() => base.cleanup());

/** Swaps `sub` between the real folder and a symlink to `outside`, as fast as it can, until killed. */
function flipper() {
  const script = `
import os, sys
os.chdir(sys.argv[1])
print("ready", flush=True)
while True:
    try:
        os.rename("sub", "sub_real"); os.rename("sub_link", "sub")
        os.rename("sub", "sub_link"); os.rename("sub_real", "sub")
    except OSError:
        pass
`;
  const child = spawn("python3", ["-c", script, ws], { stdio: ["ignore", "pipe", "inherit"] });
  const ready = new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  return {
    ready,
    stop: () =>
      new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once("exit", () => resolve()), child.kill("SIGKILL")))),
  };
}

describe("writes racing a folder swapped for a symlink", () => {
  it("never create a file outside the workspace, whichever way the race goes", async () => {
    const registry = new ToolRegistry();
    registry.registerAll(FILE_TOOLS);
    const runner = new ToolRunner({ registry, workspace: ws, approval: "all", cache: false });
    const flip = flipper();
    await flip.ready;
    const statuses = new Map<string, number>();
    try {
      for (let i = 0; i < 400; i++) {
        writeFileSync(path.join(ws, `m${i}.txt`), "moved\n");
        const calls = [
          { name: "write_file", args: { path: `sub/f${i}.txt`, content: `x${i}\n` } },
          { name: "append_file", args: { path: `sub/a${i}.txt`, content: `x${i}\n` } },
          { name: "copy_file", args: { source: "seed.txt", dest: `sub/c${i}.txt` } },
          { name: "move_file", args: { from: `m${i}.txt`, to: `sub/m${i}.txt` } },
        ];
        const outcome = await runner.run(calls[i % calls.length]!);
        statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
      }
    } finally {
      await flip.stop();
      await runner.close();
    }
    expect(readdirSync(outside)).toEqual([]);
    // the race was real: some writes landed, and some met the link and were refused
    expect(statuses.get("success") ?? 0).toBeGreaterThan(0);
  }, 120_000);
});
