import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolOutcome } from "../../src/core/result.js";
import { ToolRegistry } from "../../src/registry/registry.js";
import { ResultCache } from "../../src/runtime/cache.js";
import { FILE_TOOLS } from "../../src/tools/fs/index.js";
import { useTempWorkspace } from "../support/tools.js";

const ws = useTempWorkspace();

function outcome(content: string, structured?: unknown): ToolOutcome {
  return { status: "success", toolCallId: "c", toolName: "read_file", content, structured, executionTimeMs: 1 };
}

function cacheOf(options: { maxChars?: number; maxEntries?: number; ttlMs?: number }): ResultCache {
  return new ResultCache(ws.dir, { ttlMs: 60_000, maxEntries: 500, maxChars: 1_000, ...options });
}

describe("the read cache holds a bounded amount", () => {
  it("by size: the oldest results leave to make room, and what is kept is counted to the character", async () => {
    const cache = cacheOf({ maxChars: 1_000 });
    for (let i = 0; i < 10; i++) await cache.set(`k${i}`, outcome("x".repeat(150), { content: "y".repeat(50) }), []);
    expect(cache.size).toBe(5);
    expect(cache.chars).toBe(1_000);
    expect(await cache.get("k4")).toBeUndefined();
    expect((await cache.get("k5"))?.content).toHaveLength(150);
    cache.invalidate(["*"]);
    expect([cache.size, cache.chars]).toEqual([0, 0]);
  });

  it("a result over a quarter of the budget is not kept; one set again replaces its own size", async () => {
    const cache = cacheOf({ maxChars: 1_000 });
    await cache.set("big", outcome("x".repeat(251)), []);
    expect(cache.size).toBe(0);
    await cache.set("k", outcome("x".repeat(200)), []);
    await cache.set("k", outcome("x".repeat(100)), []);
    expect([cache.size, cache.chars]).toEqual([1, 100]);
  });

  it("strings deep in structured output and blocks count, a huge array without overflowing the stack", async () => {
    const cache = cacheOf({ maxChars: 4_000_000 });
    const matches = Array.from({ length: 300_000 }, () => ({ line: 1, text: "ab" }));
    await cache.set("grep", outcome("", { matches }), []);
    expect(cache.chars).toBe(600_000);
    const image: ToolOutcome = { ...outcome("an image"), blocks: [{ type: "image", data: "A".repeat(1_000), mimeType: "image/png" }] };
    await cache.set("img", image, []);
    // Every string counts: the block's type and MIME type too.
    expect(cache.chars).toBe(600_000 + 8 + 1_000 + 5 + 9);
  });

  it("expired results leave as new ones come, not only when asked for again", async () => {
    const cache = cacheOf({ ttlMs: 1, maxChars: 1_000_000 });
    for (let i = 0; i < 5; i++) await cache.set(`old${i}`, outcome("x".repeat(1_000)), []);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await cache.set("new", outcome("fresh"), []);
    expect([cache.size, cache.chars]).toEqual([1, 5]);
  });

  it("through the runner: reading screenshots keeps the latest within the budget and answers a repeat from it", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex");
    for (let i = 0; i < 6; i++) writeFileSync(path.join(ws.dir, `shot-${i}.png`), Buffer.concat([png, randomBytes(900_000)]));
    const registry = new ToolRegistry();
    registry.registerAll(FILE_TOOLS);
    // 1.2 million base64 characters a picture: four fit in 5 Mi, not five, and each is under a quarter.
    const runner = ws.runner({ registry, approval: "all", cache: { maxChars: 5 * 1024 * 1024 } });
    for (let i = 0; i < 6; i++) {
      const read = await runner.run({ name: "read_file", args: { path: `shot-${i}.png` } });
      expect(read.blocks?.[0]?.type).toBe("image");
    }
    const latest = await runner.run({ name: "read_file", args: { path: "shot-5.png" } });
    const first = await runner.run({ name: "read_file", args: { path: "shot-0.png" } });
    expect(latest.metadata?.["cached"]).toBe(true);
    expect(first.metadata?.["cached"]).toBeUndefined();
    expect(first.blocks?.[0]).toMatchObject({ type: "image", mimeType: "image/png" });
  });
});
