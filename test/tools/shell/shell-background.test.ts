import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import { createShellTools } from "../../../src/tools/shell/index.js";
import { shellSettingsFrom } from "../../../src/tools/shell/settings.js";
import { eventually, makeWorkspace, processesWith } from "./helpers.js";

let ws: ReturnType<typeof makeWorkspace>;
beforeAll(() => {
  ws = makeWorkspace();
});
afterAll(() => ws.cleanup());

const marker = () => `tackle-test-${randomUUID().slice(0, 8)}`;

describe("background jobs", () => {
  it("die with tackle: the exit handler kills their process groups", () => {
    const m = marker();
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "job-then-exit.ts");
    const result = spawnSync(process.execPath, ["--import", "tsx", script, m], { cwd: process.cwd(), encoding: "utf8", timeout: 20_000 });
    expect(result.status, result.stderr).toBe(0);
    expect(Number(result.stdout.trim())).toBeGreaterThan(0);
    return eventually(() => processesWith(m).length === 0).then((gone) => expect(gone).toBe(true));
  });

  it.each(["SIGTERM", "SIGINT", "SIGHUP"] as const)("die when tackle is killed by %s", async (sig) => {
    const { spawn } = await import("node:child_process");
    const m = marker();
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "job-then-wait.ts");
    const child = spawn(process.execPath, ["--import", "tsx", script, m], { cwd: process.cwd(), stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    try {
      await new Promise<void>((resolve) => child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve()));
      // The fixture's own command line holds the marker too.
      expect(processesWith(m).filter((p) => p !== child.pid).length).toBe(1);
      child.kill(sig);
      expect(await exited).toBe(sig);
      expect(await eventually(() => processesWith(m).length === 0)).toBe(true);
    } finally {
      // Whatever happened above, nothing this test started may outlive it.
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      for (const pid of processesWith(m)) process.kill(pid, "SIGKILL");
    }
  });

  it("keep bounded output and report what was dropped between reads", async () => {
    const small = createShellTools(shellSettingsFrom({ shell: { backgroundBufferChars: 1000 } }));
    const job = small.jobs.start({ command: "for i in $(seq 1 2000); do echo line-$i; done", cwd: ws.root, env: process.env });
    await job.done;
    const { text, dropped } = job.output.readNew();
    expect(text.length).toBeLessThanOrEqual(1000);
    expect(text).toContain("line-2000");
    expect(dropped).toBeGreaterThan(0);
    expect(job.output.readNew().text).toBe("");
  });
});
