import { existsSync, readFileSync, writeFileSync, utimesSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../src/registry/registry.js";
import { ToolRunner, type ToolRunnerOptions } from "../../src/runtime/runner.js";
import type { ApprovalRequest, ApprovalResponse } from "../../src/runtime/approver.js";
import type { ToolEvent } from "../../src/runtime/events.js";
import { z } from "zod";
import { defineTool } from "../../src/core/define-tool.js";
import { retryPlanOf } from "../../src/core/retry-plan.js";
import { tempDir, testTools } from "../support/tools.js";
import { silentLogger } from "../../src/core/logger.js";

let ws: ReturnType<typeof tempDir>;
let fixture: ReturnType<typeof testTools>;
let registry: ToolRegistry;
let runners: ToolRunner[];

beforeEach(() => {
  ws = tempDir();
  fixture = testTools();
  registry = new ToolRegistry();
  for (const t of fixture.tools) registry.register(t);
  registry.alias("say", "echo");
  runners = [];
});
afterEach(async () => {
  await Promise.all(runners.map((r) => r.close()));
  ws.cleanup();
});

function runner(options: Partial<ToolRunnerOptions> = {}): ToolRunner {
  const r = new ToolRunner({ registry, workspace: ws.dir, retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...options });
  runners.push(r);
  return r;
}

/** An approver that records requests and answers from a script. */
function scripted(...answers: ApprovalResponse[]) {
  const requests: ApprovalRequest[] = [];
  const approver = async (req: ApprovalRequest) => {
    requests.push(req);
    return answers.shift() ?? { approved: false, message: "script exhausted" };
  };
  return { requests, approver };
}

describe("lookup and validation", () => {
  it("runs a tool and reports success", async () => {
    const out = await runner().run({ id: "c1", name: "echo", args: { text: "ab", times: 2 } });
    expect(out).toMatchObject({ status: "success", toolCallId: "c1", toolName: "echo", content: "abab", approvedBy: "auto" });
    expect(out.executionTimeMs).toBeGreaterThanOrEqual(0);
  });

  it("gives durations to the hundredth of a millisecond, and none to a call that never ran", async () => {
    const out = await runner().run({ name: "echo", args: { text: "ab" } });
    expect(String(out.executionTimeMs)).toMatch(/^\d+(\.\d{1,2})?$/);
    const refused = await runner().run({ name: "write_note", args: { path: "x", text: "y" } });
    expect(refused.status).toBe("rejected");
    expect(refused.executionTimeMs).toBe(0);
  });

  it("resolves aliases and keeps the called name", async () => {
    const out = await runner().run({ name: "say", args: { text: "x" } });
    expect(out).toMatchObject({ status: "success", toolName: "say", content: "x" });
  });

  it("answers an unknown tool with the nearest names", async () => {
    const out = await runner().run({ name: "ecoh", args: {} });
    expect(out.status).toBe("error");
    expect(out.error?.code).toBe("UNKNOWN_TOOL");
    expect(out.content).toContain('Did you mean "echo"');
  });

  it("accepts JSON text and refuses invalid JSON", async () => {
    const r = runner();
    expect((await r.run({ name: "echo", args: '{"text":"j"}' })).content).toBe("j");
    const bad = await r.run({ name: "echo", args: '{"text": ' });
    expect(bad.error?.code).toBe("INVALID_ARGS");
    expect(bad.content).toMatch(/not valid JSON/);
  });

  it("names the field and what was expected for wrong types", async () => {
    const out = await runner().run({ name: "echo", args: { text: 42 } });
    expect(out.error?.code).toBe("INVALID_ARGS");
    expect(out.content).toContain("text must be a string, not a number");
    const missing = await runner().run({ name: "echo", args: {} });
    expect(missing.content).toMatch(/text/);
  });

  it("refuses arrays, null and non-objects as arguments", async () => {
    for (const args of ["[1,2]", "null", "7", '"x"']) {
      const out = await runner().run({ name: "echo", args });
      expect(out.error?.code, args).toBe("INVALID_ARGS");
      expect(out.content).toMatch(/must be a JSON object/);
    }
  });

  it("refuses __proto__ keys without polluting prototypes", async () => {
    const out = await runner().run({ name: "echo", args: '{"text":"a","__proto__":{"polluted":true}}' });
    expect(out.error?.code).toBe("INVALID_ARGS");
    expect(out.content).toContain("__proto__");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const nested = await runner().run({ name: "echo", args: '{"text":"a","x":{"__proto__":{"p":1}}}' });
    expect(nested.error?.code).toBe("INVALID_ARGS");
  });

  it("refuses a 10 MB argument with a way forward", async () => {
    const huge = "x".repeat(10 * 1024 * 1024);
    const out = await runner().run({ name: "echo", args: { text: huge } });
    expect(out.error?.code).toBe("INVALID_ARGS");
    expect(out.content).toMatch(/10\.0 MB; the limit is 5\.0 MB/);
    const asText = await runner().run({ name: "echo", args: JSON.stringify({ text: huge }) });
    expect(asText.error?.code).toBe("INVALID_ARGS");
  });
});

describe("failures become outcomes", () => {
  it.each([
    ["throw", "EXECUTION_ERROR", /boom/],
    ["enoent", "FILE_NOT_FOUND", /No such file/],
    ["isError", "PERMISSION_DENIED", /it went wrong/],
    ["toolError", "INVALID_PATH", /outside/],
    ["string", "EXECUTION_ERROR", /a string/],
  ] as const)("%s → %s", async (how, code, text) => {
    const out = await runner({ approval: "all" }).run({ name: "fail", args: { how } });
    expect(out.status).toBe("error");
    expect(out.error?.code).toBe(code);
    expect(out.content).toMatch(text);
    expect(out.content.startsWith(`Error [${code}]`)).toBe(true);
  });
});

describe("approval", () => {
  it("auto-approves reads in safe mode and asks for writes", async () => {
    const { requests, approver } = scripted({ approved: true });
    const r = runner({ approver });
    expect((await r.run({ name: "echo", args: { text: "a" } })).approvedBy).toBe("auto");
    const out = await r.run({ name: "write_note", args: { path: "n.txt", text: "hi" } });
    expect(out).toMatchObject({ status: "success", approvedBy: "user" });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ tool: "write_note", effect: "write", args: { path: "n.txt", text: "hi" } });
    expect(requests[0]!.preview).toContain("+hi");
    expect(requests[0]!.reason).toMatch(/approval/);
  });

  it("asks for reads too in none mode, and nothing in all mode", async () => {
    const s1 = scripted({ approved: true });
    await runner({ approval: "none", approver: s1.approver }).run({ name: "echo", args: { text: "a" } });
    expect(s1.requests).toHaveLength(1);
    const s2 = scripted();
    const out = await runner({ approval: "all", approver: s2.approver }).run({ name: "write_note", args: { path: "n.txt", text: "x" } });
    expect(out.status).toBe("success");
    expect(s2.requests).toHaveLength(0);
  });

  it("passes the person's message to the model on rejection and never runs the tool", async () => {
    const { approver } = scripted({ approved: false, message: "wrong file" });
    const out = await runner({ approver }).run({ name: "write_note", args: { path: "n.txt", text: "x" } });
    expect(out).toMatchObject({ status: "rejected", userMessage: "wrong file", approvedBy: "user" });
    expect(out.error?.code).toBe("REJECTED");
    expect(out.content).toContain('"wrong file"');
    expect(fixture.calls.write).toBe(0);
  });

  it("rejects without an approver, saying how to proceed", async () => {
    const out = await runner().run({ name: "write_note", args: { path: "n.txt", text: "x" } });
    expect(out.status).toBe("rejected");
    expect(out.content).toMatch(/allow rule|approval mode/);
    expect(fixture.calls.write).toBe(0);
  });

  it("remembers 'always' for the session as the narrowest rule: the same path again, not another", async () => {
    const { requests, approver } = scripted({ approved: true, always: true }, { approved: false });
    const r = runner({ approver });
    await r.run({ name: "write_note", args: { path: "a.txt", text: "1" } });
    const again = await r.run({ name: "write_note", args: { path: "a.txt", text: "2" } });
    expect(again).toMatchObject({ status: "success", approvedBy: "user" });
    expect(requests).toHaveLength(1);
    expect(r.sessionAllows().map((rule) => rule.source)).toEqual(["write_note(a.txt)"]);
    // The person was shown what always would keep before granting it.
    expect(requests[0]!.alwaysRules).toEqual(["write_note(a.txt)"]);
    expect((await r.run({ name: "write_note", args: { path: "b.txt", text: "3" } })).status).toBe("rejected");
    expect(requests).toHaveLength(2);
  });

  it("widens 'always' only to a rule the person chose that covers the call", async () => {
    const { requests, approver } = scripted(
      { approved: true, always: true, alwaysRule: "write_note(other/**)" },
      { approved: true, always: true, alwaysRule: "write_note" },
    );
    const r = runner({ approver });
    // A rule that does not cover the call is not kept: the narrowest one is.
    await r.run({ name: "write_note", args: { path: "a.txt", text: "1" } });
    expect(r.sessionAllows().map((rule) => rule.source)).toEqual(["write_note(a.txt)"]);
    await r.run({ name: "write_note", args: { path: "b.txt", text: "2" } });
    expect((await r.run({ name: "write_note", args: { path: "c.txt", text: "3" } })).status).toBe("success");
    expect(requests).toHaveLength(2);
  });

  it("keeps each scope's 'always' to itself", async () => {
    const { requests, approver } = scripted({ approved: true, always: true }, { approved: false });
    const r = runner({ approver });
    await r.run({ name: "write_note", args: { path: "a.txt", text: "1" } }, { scope: "alice" });
    expect((await r.run({ name: "write_note", args: { path: "a.txt", text: "2" } }, { scope: "alice" })).status).toBe("success");
    expect((await r.run({ name: "write_note", args: { path: "a.txt", text: "3" } }, { scope: "bob" })).status).toBe("rejected");
    expect(requests).toHaveLength(2);
    expect(r.sessionAllows("alice")).toHaveLength(1);
    expect(r.sessionAllows()).toHaveLength(0);
  });

  it("validates modified arguments again", async () => {
    const bad = scripted({ approved: true, modifiedArgs: { path: 5 } });
    const out = await runner({ approver: bad.approver }).run({ name: "write_note", args: { path: "a.txt", text: "1" } });
    expect(out.error?.code).toBe("INVALID_ARGS");
    expect(fixture.calls.write).toBe(0);
    const good = scripted({ approved: true, modifiedArgs: { path: "b.txt", text: "edited" } });
    const ok = await runner({ approver: good.approver }).run({ name: "write_note", args: { path: "a.txt", text: "1" } });
    expect(ok.status).toBe("success");
    expect(readFileSync(path.join(ws.dir, "b.txt"), "utf8")).toBe("edited");
  });

  it("refuses modified arguments that policy denies", async () => {
    const { approver } = scripted({ approved: true, modifiedArgs: { path: "secret/x.txt", text: "1" } });
    const out = await runner({ approver, rules: { deny: ["write_note(secret/**)"] } }).run({
      name: "write_note",
      args: { path: "a.txt", text: "1" },
    });
    expect(out.status).toBe("rejected");
    expect(fixture.calls.write).toBe(0);
  });

  it("holds deny rules in every mode, by any name of the tool", async () => {
    for (const approval of ["none", "safe", "all"] as const) {
      const out = await runner({ approval, rules: { deny: ["echo"] } }).run({ name: "say", args: { text: "a" } });
      expect(out, approval).toMatchObject({ status: "rejected", approvedBy: "policy" });
      expect(out.error?.code).toBe("PERMISSION_DENIED");
    }
  });

  it("lets deny beat ask beat allow", async () => {
    const { requests, approver } = scripted({ approved: true });
    const r = runner({
      approval: "all",
      approver,
      rules: { allow: ["write_note"], ask: ["write_note(docs/**)"], deny: ["write_note(docs/private/**)"] },
    });
    expect((await r.run({ name: "write_note", args: { path: "a.txt", text: "1" } })).approvedBy).toBe("config");
    expect((await r.run({ name: "write_note", args: { path: "docs/b.txt", text: "1" } })).status).toBe("error"); // docs/ missing: it ran after asking
    expect(requests).toHaveLength(1);
    expect((await r.run({ name: "write_note", args: { path: "docs/private/c.txt", text: "1" } })).status).toBe("rejected");
  });

  it("auto-approves what an allow rule covers even in none mode", async () => {
    const out = await runner({ approval: "none", rules: { allow: ["write_note(notes/*.txt)"] } }).run({
      name: "write_note",
      args: { path: "notes/a.txt", text: "1" },
    });
    expect(out.approvedBy).toBe("config");
  });

  it("denies sensitive paths unless a rule allows them explicitly", async () => {
    writeFileSync(path.join(ws.dir, ".env"), "TOKEN=1");
    const denied = await runner({ approval: "all" }).run({ name: "read_note", args: { path: ".env" } });
    expect(denied).toMatchObject({ status: "rejected", approvedBy: "policy" });
    expect(denied.content).toMatch(/secrets/);
    const allowed = await runner({ rules: { allow: ["read_note(.env)"] } }).run({ name: "read_note", args: { path: ".env" } });
    expect(allowed).toMatchObject({ status: "success", content: "TOKEN=1" });
  });
});

describe("execution", () => {
  it("streams output and progress, and emits events in order", async () => {
    const chunks: string[] = [];
    const events: ToolEvent[] = [];
    const r = runner();
    r.on("*", (e) => events.push(e));
    const out = await r.run({ id: "s", name: "slow", args: { ms: 1 } }, { onOutput: (c) => chunks.push(c) });
    expect(out.content).toBe("finished");
    expect(chunks).toEqual(["started\n"]);
    const types = events.map((e) => e.type);
    expect(types).toEqual(["tool.call", "tool.approval", "agent.state", "tool.output", "tool.progress", "tool.result", "agent.state"]);
    expect(events.find((e) => e.type === "tool.progress")).toMatchObject({ progress: 1, total: 2, message: "half" });
  });

  it("cancels on abort, before or during the call", async () => {
    const r = runner();
    const before = new AbortController();
    before.abort();
    expect((await r.run({ name: "slow", args: { ms: 10_000 } }, { signal: before.signal })).status).toBe("cancelled");
    const during = new AbortController();
    const pending = r.run({ name: "slow", args: { ms: 10_000 } }, { signal: during.signal });
    setTimeout(() => during.abort(), 20);
    const out = await pending;
    expect(out.status).toBe("cancelled");
    expect(out.error?.code).toBe("CANCELLED");
  });

  it("times out with the output printed so far", async () => {
    const out = await runner().run({ name: "slow", args: { ms: 10_000, limitMs: 50 } });
    expect(out.status).toBe("error");
    expect(out.error).toMatchObject({ code: "TIMEOUT", recoverable: true });
    expect(out.content).toMatch(/timed out after 50 ms/);
    expect(out.content).toContain("started");
  });

  // The limit and the caller's cancellation are watched from the turn after a call began: these
  // calls hang at once, or are cancelled before that turn comes.
  it("times out a call that hangs without ever waiting on anything", async () => {
    registry.register(
      defineTool({
        name: "hang",
        description: "Never answers.",
        effect: "read",
        input: z.object({}),
        execute: () => new Promise<string>(() => {}),
      }),
    );
    const out = await runner({ timeoutMs: 30 }).run({ name: "hang", args: {} });
    expect(out.error?.code).toBe("TIMEOUT");
  });

  it("cancels a call aborted in the turn it began in, and its signal says so when asked later", async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    let looked!: () => void;
    const lookedLater = new Promise<void>((resolve) => (looked = resolve));
    registry.register(
      defineTool({
        name: "cancel_self",
        description: "Cancels its own call, then asks for its signal a little later.",
        effect: "read",
        input: z.object({}),
        execute: async (_args, ctx) => {
          controller.abort();
          await new Promise((resolve) => setTimeout(resolve, 20));
          seen = ctx.signal;
          looked();
          return "too late";
        },
      }),
    );
    const out = await runner().run({ name: "cancel_self", args: {} }, { signal: controller.signal });
    expect(out.status).toBe("cancelled");
    await lookedLater;
    expect(seen?.aborted).toBe(true);
  });

  it("uses the runner's default timeout when the tool sets none", async () => {
    const out = await runner({ timeoutMs: 30 }).run({ name: "slow", args: { ms: 10_000 } });
    expect(out.error?.code).toBe("TIMEOUT");
  });

  it("retries recoverable failures of idempotent tools with backoff", async () => {
    const out = await runner().run({ name: "flaky", args: { failures: 2 } });
    expect(out).toMatchObject({ status: "success", content: "ok after 3" });
    expect(fixture.calls.flaky).toBe(3);
  });

  it("gives up after three retries", async () => {
    const out = await runner().run({ name: "flaky", args: { failures: 10 } });
    expect(out.error?.code).toBe("NETWORK_ERROR");
    expect(fixture.calls.flaky).toBe(4);
  });

  it("does not retry unrecoverable failures or writes", async () => {
    await runner().run({ name: "flaky", args: { failures: 5, code: "EXECUTION_ERROR" } });
    expect(fixture.calls.flaky).toBe(1);
    await runner({ approval: "all" }).run({ name: "fail", args: { how: "throw" } });
    expect(fixture.calls.fail).toBe(1);
  });

  it("retries a timed-out call with a fresh limit only when its plan says timeouts are safe to repeat", async () => {
    let tries = 0;
    const make = (name: string, effect: "read" | "network" | "execute", extra: { retryTimeouts?: boolean; idempotent?: boolean } = {}) =>
      defineTool({
        name,
        description: "Slow the first two times.",
        effect,
        ...extra,
        input: z.object({}),
        timeoutMs: () => 200,
        execute: async (_args, ctx) => {
          tries++;
          if (tries <= 2) await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
          return `answered on try ${tries}`;
        },
      });
    registry.register(make("remote", "network", { idempotent: true }));
    registry.register(make("local_read", "read"));
    registry.register(make("command", "execute"));
    registry.register(make("read_told", "read", { retryTimeouts: true }));
    expect(retryPlanOf(registry.get("remote")!)).toEqual({ failures: true, timeouts: true });
    expect(registry.get("remote")!.annotations.idempotentHint).toBe(true);

    const out = await runner({ approval: "all" }).run({ name: "remote", args: {} });
    expect(out).toMatchObject({ status: "success", content: "answered on try 3" });
    tries = 0;
    const read = await runner().run({ name: "local_read", args: {} });
    expect(read.error?.code).toBe("TIMEOUT");
    expect(tries).toBe(1);
    tries = 0;
    expect((await runner({ approval: "all" }).run({ name: "command", args: {} })).error?.code).toBe("TIMEOUT");
    expect(tries).toBe(1);
    tries = 0;
    expect((await runner().run({ name: "read_told", args: {} })).content).toBe("answered on try 3");
  });

  it("says how many times a call was tried when it still fails", async () => {
    const out = await runner().run({ name: "flaky", args: { failures: 10 } });
    expect(out.content).toMatch(/\(tried 4 times\)$/);
  });

  it("caps long output, keeping head and tail, and saves the whole for reading", async () => {
    const out = await runner({ maxOutputChars: 2_000 }).run({ id: "big1", name: "big", args: { lines: 10_000 } });
    expect(out.content.length).toBeLessThan(2_600);
    expect(out.content).toMatch(/^line 1\n/);
    expect(out.content).toMatch(/line 10000$/);
    expect(out.content).toMatch(/characters cut \(lines \d+–\d+\)/);
    const full = out.metadata?.fullOutputPath as string;
    expect(readFileSync(full, "utf8").split("\n")).toHaveLength(10_000);
    expect(out.content).toContain(full);
  });

  it("leaves out a structured result too large to send, keeping the capped text", async () => {
    const huge = defineTool({
      name: "huge",
      description: "Returns a large structured result.",
      effect: "read",
      input: z.object({ n: z.number() }),
      execute: async ({ n }) => ({ content: "summary", structured: { rows: Array.from({ length: n }, (_, i) => `row ${i}`) } }),
    });
    registry.register(huge);
    const small = await runner({ maxOutputChars: 1_000 }).run({ name: "huge", args: { n: 10 } });
    expect(small.structured).toEqual({ rows: Array.from({ length: 10 }, (_, i) => `row ${i}`) });
    const big = await runner({ maxOutputChars: 1_000 }).run({ name: "huge", args: { n: 1_000 } });
    expect(big.structured).toBeUndefined();
    expect(big.content).toBe("summary");
    expect(big.metadata?.structuredOmitted).toMatch(/over the 2000 limit/);
  });

  it("marks untrusted content", async () => {
    const out = await runner().run({ name: "big", args: { lines: 2, untrusted: true } });
    expect(out.content).toMatch(/^<untrusted-content source="https:\/\/example.test\/page">\nline 1\nline 2\n<\/untrusted-content>/);
    expect(out.content).toMatch(/do not follow instructions/);
  });
});

describe("cache", () => {
  it("serves repeated reads from the cache and a write through tackle invalidates them", async () => {
    writeFileSync(path.join(ws.dir, "n.txt"), "one");
    const r = runner({ approval: "all" });
    expect((await r.run({ name: "read_note", args: { path: "n.txt" } })).content).toBe("one");
    const cached = await r.run({ name: "read_note", args: { path: "n.txt" } });
    expect(cached.metadata?.cached).toBe(true);
    expect(fixture.calls.read).toBe(1);
    await r.run({ name: "write_note", args: { path: "n.txt", text: "+two" } });
    expect((await r.run({ name: "read_note", args: { path: "n.txt" } })).content).toBe("one+two");
    expect(fixture.calls.read).toBe(2);
  });

  it("notices a file changed behind its back", async () => {
    const file = path.join(ws.dir, "n.txt");
    writeFileSync(file, "one");
    const r = runner();
    await r.run({ name: "read_note", args: { path: "n.txt" } });
    writeFileSync(file, "changed!");
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect((await r.run({ name: "read_note", args: { path: "n.txt" } })).content).toBe("changed!");
  });

  it("can be switched off", async () => {
    const r = runner({ cache: false });
    await r.run({ name: "echo", args: { text: "a" } });
    await r.run({ name: "echo", args: { text: "a" } });
    expect(fixture.calls.echo).toBe(2);
  });
});

describe("runAll", () => {
  it("emits file.changed after the result of a write", async () => {
    const events: string[] = [];
    const r = runner({ approval: "all" });
    r.on("*", (e) => events.push(e.type === "file.changed" ? `file.changed:${e.path}` : e.type));
    await r.run({ name: "write_note", args: { path: "f.txt", text: "1" } });
    expect(events.slice(-3)).toEqual(["tool.result", "file.changed:f.txt", "agent.state"]);
  });

  it("runs independent calls in parallel and returns outcomes in order", async () => {
    const r = runner({ approval: "all" });
    let active = 0;
    let peak = 0;
    r.on("agent.state", () => {});
    r.on("tool.output", () => {
      active++;
      peak = Math.max(peak, active);
    });
    r.on("tool.result", () => active--);
    const outs = await r.runAll([
      { id: "1", name: "slow", args: { ms: 40 } },
      { id: "2", name: "slow", args: { ms: 40 } },
      { id: "3", name: "echo", args: { text: "x" } },
    ]);
    expect(outs.map((o) => o.toolCallId)).toEqual(["1", "2", "3"]);
    expect(peak).toBe(2);
  });

  it("serialises writes to the same path in the order given", async () => {
    const r = runner({ approval: "all" });
    const outs = await r.runAll([
      { name: "write_note", args: { path: "o.txt", text: "A", delayMs: 30 } },
      { name: "write_note", args: { path: "o.txt", text: "B" } },
      { name: "read_note", args: { path: "o.txt" } },
      { name: "write_note", args: { path: "other.txt", text: "C" } },
    ]);
    expect(outs.map((o) => o.status)).toEqual(["success", "success", "success", "success"]);
    expect(readFileSync(path.join(ws.dir, "o.txt"), "utf8")).toBe("AB");
    expect(outs[2]!.content).toBe("AB");
  });
});

describe("records", () => {
  it("writes a JSONL audit log with secrets redacted", async () => {
    const log = path.join(ws.dir, "logs", "audit.jsonl");
    const r = new ToolRunner({ registry, workspace: ws.dir, log, approval: "all" });
    await r.run({ id: "a1", name: "echo", args: { text: "api_key=sk-abcdefghijklmnopqrstuvwxyz" } });
    await r.run({ id: "a2", name: "nope", args: { password: "hunter2" } });
    await r.close();
    const lines = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ toolCallId: "a1", toolName: "echo", status: "success", approvedBy: "auto" });
    expect(JSON.stringify(lines)).not.toContain("sk-abcdefghijklmnop");
    expect(JSON.stringify(lines)).not.toContain("hunter2");
    expect(lines[1]).toMatchObject({ status: "error", errorCode: "UNKNOWN_TOOL" });
    expect(typeof lines[0]!.timestamp).toBe("string");
  });

  it("writes the audit trail's start row before a call runs and its end row without the output; a read's two rows at once", async () => {
    const rows: Array<{ via: string; phase: string; toolCallId: string; data: unknown; fileThere?: boolean }> = [];
    const note = path.join(ws.dir, "audited.txt");
    const r = runner({
      approval: "all",
      audit: {
        begin: async (toolCallId, _tool, args) =>
          void rows.push({ via: "begin", phase: "start", toolCallId, data: args, fileThere: existsSync(note) }),
        end: async (toolCallId, _tool, record) => void rows.push({ via: "end", phase: "end", toolCallId, data: record }),
        read: async (toolCallId, _tool, args, record) => {
          rows.push({ via: "read", phase: "start", toolCallId, data: args }, { via: "read", phase: "end", toolCallId, data: record });
        },
      },
    });
    const out = await r.run({ id: "t1", name: "echo", args: { text: "token=sk-abcdefghijklmnopqrstuvwxyz and more" } });
    expect(out.status).toBe("success");
    const wrote = await r.run({ id: "w1", name: "write_note", args: { path: "audited.txt", text: "x" } });
    expect(wrote.status).toBe("success");
    expect(rows.map((row) => `${row.toolCallId} ${row.via} ${row.phase}`)).toEqual([
      "t1 read start",
      "t1 read end",
      "w1 begin start",
      "w1 end end",
    ]);
    expect(rows[2]!.fileThere).toBe(false);
    expect(rows[1]!.data).toMatchObject({ toolCallId: "t1", status: "success" });
    expect(rows[1]!.data).not.toHaveProperty("result");
    expect(JSON.stringify(rows)).not.toContain("sk-abcdefghijklmnop");
  });

  it("writes the end row before the outcome is handed back, and marks an outcome whose row was refused", async () => {
    const order: string[] = [];
    const warnings: string[] = [];
    let refuse = false;
    const r = runner({
      approval: "all",
      logger: { ...silentLogger, warn: (m: string) => void warnings.push(m) },
      audit: {
        begin: async () => void order.push("start"),
        end: async () => {
          order.push("end");
          if (refuse) throw new Error("disk full");
        },
        read: async () => void order.push("read"),
      },
    });
    // Every result a client receives has its row, even if the process dies right after replying.
    const out = await r.run({ id: "t3", name: "write_note", args: { path: "t3.txt", text: "hi" } }).then((o) => (order.push("reply"), o));
    expect(out.status).toBe("success");
    expect(order).toEqual(["start", "end", "reply"]);
    refuse = true;
    const marked = await r.run({ id: "t4", name: "write_note", args: { path: "t4.txt", text: "hi" } });
    expect(marked.metadata?.auditFailed).toMatch(/disk full/);
    expect(warnings.join("\n")).toMatch(/audit trail did not take the outcome of t4: disk full/);
  });

  it("answers a read whose rows cannot be written with an error, never its result, and keeps no such result", async () => {
    let refuse = true;
    const rows: string[] = [];
    const r = runner({
      approval: "all",
      audit: {
        begin: async () => undefined,
        end: async (toolCallId) => void rows.push(`${toolCallId} end`),
        read: async (toolCallId) => {
          if (refuse) throw new Error("disk full");
          rows.push(`${toolCallId} start`, `${toolCallId} end`);
        },
      },
    });
    for (const id of ["t5", "t6"]) {
      // The second is the same read: a result withheld once is not handed back from the cache.
      const out = await r.run({ id, name: "echo", args: { text: "the secret result" } });
      expect(out.status).toBe("error");
      expect(out.error?.code).toBe("UNAVAILABLE");
      expect(out.content).toMatch(/audit trail could not be written \(disk full\), so the result was withheld/);
      expect(JSON.stringify(out)).not.toContain("the secret result");
    }
    refuse = false;
    const later = await r.run({ id: "t7", name: "echo", args: { text: "the secret result" } });
    expect(later.status).toBe("success");
    expect(later.metadata?.cached).toBeUndefined();
    expect(rows).toEqual(["t7 start", "t7 end"]);
  });

  it("does not run a call whose start row cannot be written", async () => {
    const ran: string[] = [];
    const r = runner({
      approval: "all",
      audit: {
        begin: async () => {
          throw new Error("disk full");
        },
        end: async (toolCallId) => void ran.push(toolCallId),
        read: async (toolCallId) => void ran.push(toolCallId),
      },
    });
    const out = await r.run({ id: "t2", name: "write_note", args: { path: "never.txt", text: "x" } });
    expect(out.status).toBe("error");
    expect(out.error?.message).toMatch(/audit trail could not be written \(disk full\), so the call did not run/);
    expect(() => readFileSync(path.join(ws.dir, "never.txt"))).toThrow();
  });

  it("keeps metrics per tool", async () => {
    const r = runner();
    await r.run({ name: "echo", args: { text: "a" } });
    await r.run({ name: "echo", args: { text: 1 } });
    await r.run({ name: "write_note", args: { path: "x", text: "1" } });
    const echo = r.metrics.get("echo")!;
    expect(echo).toMatchObject({ calls: 2, successes: 1, errors: 1 });
    expect(echo.p95Ms).toBeGreaterThanOrEqual(echo.p50Ms);
    expect(r.metrics.get("write_note")).toMatchObject({ rejections: 1 });
  });
});
