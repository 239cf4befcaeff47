import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const FIXTURES = fileURLToPath(new URL("../../fixtures/mcp/", import.meta.url));
export const STDIO_SERVER = path.join(FIXTURES, "client-stdio-server.mjs");
export const V2_SERVER = path.join(FIXTURES, "client-v2-stdio-server.mjs");
export const NPX_LIKE_WRAPPER = path.join(FIXTURES, "client-npx-like-wrapper.mjs");
export const FS_SERVER = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url),
);

/** A string to put in a server's command line, to find its processes later. */
export function uniqueMarker(): string {
  return `tackle-mcp-client-test-${randomUUID()}`;
}

/** Live (not zombie) processes whose command line contains `marker`, other than this one. */
export function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (!cmdline.includes(marker)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
      if (state !== "Z" && state !== "X") out.push(Number(name));
    } catch {
      // ended while we looked
    }
  }
  return out;
}

/** Waits until no process carries `marker` (killing is asynchronous), or returns what is left. */
export async function leftoverProcesses(marker: string, waitMs = 5_000): Promise<number[]> {
  const until = Date.now() + waitMs;
  for (;;) {
    const left = processesWith(marker);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Kills whatever a failed test left, so one failure does not leak into the machine. */
export function killLeftovers(marker: string): void {
  for (const pid of processesWith(marker)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

/** A stdio server entry for the fixture server. */
export function fixtureServer(marker: string, extra: Record<string, unknown> = {}, args: string[] = []): Record<string, unknown> {
  return { command: process.execPath, args: [STDIO_SERVER, "--marker", marker, ...args], ...extra };
}

export async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>, waitMs = 10_000): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
