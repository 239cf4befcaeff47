import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type Sandbox } from "./helpers.js";
import { ATOMIC_TEMP_PREFIX } from "../../../src/workspace/atomic-write.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const writer = path.join(here, "fixtures", "atomic-writer.ts");
const repo = path.resolve(here, "../../..");
const SIZE = 8 * 1024 * 1024;

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

/** Starts the writer, lets it write for a while, then SIGKILLs it mid-stream. */
function runAndKill(delayMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", writer, sb.ws, "big.txt", String(SIZE)], {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.on("data", (d: Buffer) => {
      if (d.toString().includes("ready")) setTimeout(() => child.kill("SIGKILL"), delayMs);
    });
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") resolve();
      else reject(new Error(`writer exited (${code}) before it was killed: ${stderr}`));
    });
  });
}

describe("atomic writes under SIGKILL", () => {
  it("leaves the old or the new content, never a mix, however the writer dies", { timeout: 120_000 }, async () => {
    writeFileSync(path.join(sb.ws, "big.txt"), "A".repeat(SIZE));
    const seen = new Set<string>();
    for (let round = 0; round < 8; round++) {
      await runAndKill(15 + round * 23);
      const data = readFileSync(path.join(sb.ws, "big.txt"), "latin1");
      expect(data.length).toBe(SIZE);
      const first = data[0]!;
      expect(first === "A" || first === "B").toBe(true);
      // Whole file one letter: a torn write would mix them or be short.
      expect(data === first.repeat(SIZE)).toBe(true);
      seen.add(first);
    }
    // Only temporary files (never the target) can be left half-written by a kill.
    for (const name of readdirSync(sb.ws)) expect(name === "big.txt" || name.startsWith(ATOMIC_TEMP_PREFIX)).toBe(true);
    expect(seen.size).toBeGreaterThanOrEqual(1);
  });
});
