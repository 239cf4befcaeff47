import { appendFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CallHistory } from "../../src/serve/call-history.js";
import type { ToolOutcome } from "../../src/core/result.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
beforeEach(() => {
  ws = tempDir();
});
afterEach(() => ws.cleanup());

function line(i: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    toolCallId: `c${i}`,
    toolName: i % 2 ? "shell" : "read_file",
    params: { path: `f${i}.txt` },
    status: i % 5 === 0 ? "error" : "success",
    ...(i % 5 === 0 ? { error: `boom ${i}`, errorCode: "EXECUTION_FAILED" } : { result: `r${i}` }),
    executionTimeMs: i,
    ...extra,
  });
}

function outcome(id: string, tool: string, status: ToolOutcome["status"], ms: number): ToolOutcome {
  return { status, toolCallId: id, toolName: tool, content: status === "success" ? "done" : "no", executionTimeMs: ms };
}

describe("CallHistory", () => {
  it("indexes the audit log newest first and pages it by seq", async () => {
    const file = path.join(ws.dir, "audit.jsonl");
    writeFileSync(file, Array.from({ length: 25 }, (_, i) => line(i)).join("\n") + "\n");
    const h = new CallHistory({ logPath: file });
    await h.ready;
    expect(h.size).toBe(25);
    const first = await h.page({ limit: 10 });
    expect(first.items.map((c) => c.toolCallId)).toEqual(["c24", "c23", "c22", "c21", "c20", "c19", "c18", "c17", "c16", "c15"]);
    const second = await h.page({ limit: 10, before: first.next! });
    expect(second.items[0]!.toolCallId).toBe("c14");
    const last = await h.page({ limit: 10, before: second.next! });
    expect(last.items).toHaveLength(5);
    expect(last.next).toBeUndefined();
  });

  it("filters by tool, status and text, and opens a line from the file", async () => {
    const file = path.join(ws.dir, "audit.jsonl");
    writeFileSync(file, Array.from({ length: 20 }, (_, i) => line(i)).join("\n") + "\n");
    const h = new CallHistory({ logPath: file });
    await h.ready;
    expect((await h.page({ tool: "shell", status: "error" })).items.map((c) => c.toolCallId)).toEqual(["c15", "c5"]);
    expect((await h.page({ text: "F7.TXT" })).items.map((c) => c.toolCallId)).toEqual(["c7"]);
    expect((await h.page({ text: "boom 10" })).items.map((c) => c.toolCallId)).toEqual(["c10"]);
    const seq = (await h.page({ text: "f10.txt" })).items[0]!.seq;
    await expect(h.detail(seq)).resolves.toMatchObject({
      args: { path: "f10.txt" },
      error: "boom 10",
      errorCode: "EXECUTION_FAILED",
      source: "log",
    });
    await expect(h.detail(999)).resolves.toBeUndefined();
  });

  it("skips malformed lines and a half-written last line, and ignores what is appended later", async () => {
    const file = path.join(ws.dir, "audit.jsonl");
    writeFileSync(file, `${line(1)}\nnot json\n{"toolName":"x"}\n${line(2)}\n${line(3).slice(0, 20)}`);
    const h = new CallHistory({ logPath: file });
    await h.ready;
    appendFileSync(file, `\n${line(4)}\n`);
    expect((await h.page()).items.map((c) => c.toolCallId)).toEqual(["c2", "c1"]);
  });

  it("starts empty when the log does not exist yet", async () => {
    const h = new CallHistory({ logPath: path.join(ws.dir, "none.jsonl") });
    await h.ready;
    expect((await h.page()).items).toEqual([]);
  });

  it("follows this server's calls: waiting, running, then their outcome, events and durations", async () => {
    const h = new CallHistory();
    h.observe({ type: "tool.call", toolCallId: "w", tool: "write_file", args: { path: "a" }, requiresApproval: true });
    h.observe({
      type: "approval.requested",
      id: "desk_w",
      askedAt: 0,
      expiresAt: 1,
      toolCallId: "w",
      tool: "write_file",
      args: { path: "a" },
      effect: "write",
      reason: "r",
    });
    expect(h.active()).toMatchObject([{ toolCallId: "w", status: "waiting" }]);
    expect((await h.page({ status: "waiting" })).items).toHaveLength(1);
    h.observe({ type: "approval.resolved", id: "desk_w", toolCallId: "w", tool: "write_file", approved: true, by: "ann" });
    expect(h.active()[0]!.status).toBe("running");
    h.observe({ type: "tool.output", toolCallId: "w", tool: "write_file", chunk: "x".repeat(5000) });
    h.observe({
      type: "tool.result",
      toolCallId: "w",
      tool: "write_file",
      outcome: { ...outcome("w", "write_file", "success", 12), approvedBy: "user" },
    });
    // Refused before it started: only a result arrives.
    h.observe({ type: "tool.result", toolCallId: "u", tool: "nope", outcome: outcome("u", "nope", "error", 0) });
    expect(h.active()).toEqual([]);
    expect((await h.page()).items.map((c) => [c.toolCallId, c.status, c.approvedBy])).toEqual([
      ["u", "error", undefined],
      ["w", "success", "user"],
    ]);
    const detail = await h.detail((await h.page({ tool: "write_file" })).items[0]!.seq);
    expect(detail).toMatchObject({ args: { path: "a" }, result: "done", source: "live", durationMs: 12 });
    expect(detail!.events.map((e) => e.type)).toEqual([
      "tool.call",
      "approval.requested",
      "approval.resolved",
      "tool.output",
      "tool.result",
    ]);
    expect(String((detail!.events[3]!.data as { chunk: string }).chunk).length).toBeLessThan(2100);
    expect(h.series()).toEqual({ write_file: [12], nope: [0] });
    expect(h.tools()).toEqual(["nope", "write_file"]);
  });

  it("serves the newest page while older lines are still read, and files calls made meanwhile after the log", async () => {
    const file = path.join(ws.dir, "audit.jsonl");
    writeFileSync(file, Array.from({ length: 10_000 }, (_, i) => line(i)).join("\n") + "\n");
    const h = new CallHistory({ logPath: file });
    // Arrives before the log's lines are counted: kept, then numbered after them.
    h.observe({ type: "tool.call", toolCallId: "live", tool: "grep", args: {}, requiresApproval: false });
    const first = await h.page({ limit: 3 });
    expect(first.items.map((c) => c.toolCallId)).toEqual(["live", "c9999", "c9998"]);
    expect(first.items[0]!.seq).toBe(10_001);
    expect((await h.page({ text: "f3.txt" })).items.map((c) => c.toolCallId)).toEqual(["c3"]);
    await h.ready;
    expect(h.size).toBe(10_001);
  });
});

describe("CallHistory on an unreadable log", () => {
  it("shows nothing from it and still follows live calls", async () => {
    const ws2 = tempDir();
    try {
      // A directory where the log should be: stat succeeds, reading fails.
      const h = new CallHistory({ logPath: ws2.dir });
      await h.ready;
      h.observe({ type: "tool.call", toolCallId: "x", tool: "grep", args: {}, requiresApproval: false });
      expect((await h.page()).items.map((c) => c.toolCallId)).toEqual(["x"]);
    } finally {
      ws2.cleanup();
    }
  });
});
