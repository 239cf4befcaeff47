import { existsSync } from "node:fs";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, spawnEnv } from "../../support/tools.js";
import { fixtureCommand, handDrivenModernClient, isAlive, ROOT, textOf, waitFor } from "./helpers.js";

type Result = Record<string, unknown> & { resultType?: string; requestState?: string; inputRequests?: Record<string, unknown> };

/**
 * The 2026-07-28 input-required round trip by hand (the client's auto-fulfilment off): the
 * requestState the server hands out is a key into its memory, so a forged, replayed, stale or
 * re-targeted retry finds nothing to approve.
 */
describe("2026-07-28 approval round trip, by hand", () => {
  let ws: { dir: string; cleanup: () => void };
  let client: Client;
  let pid: number | undefined;
  const opts = { allowInputRequired: true } as never;
  const accept = { approval: { action: "accept", content: { approve: true } } };

  const call = (name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args, ...extra } as never, opts) as Promise<Result>;

  beforeAll(async () => {
    ws = tempDir("tackle-mcp-mrtr-");
    client = handDrivenModernClient("manual");
    const cmd = fixtureCommand(["--workspace", ws.dir, "--approval-timeout", "400"]);
    const transport = new StdioClientTransport({
      env: spawnEnv(),
      ...cmd,
      cwd: ROOT,
      stderr: "pipe",
    });
    await client.connect(transport);
    pid = transport.pid ?? undefined;
  });

  afterAll(async () => {
    await client?.close();
    if (pid) await waitFor(() => !isAlive(pid!));
    ws?.cleanup();
  });

  it("answers with input_required carrying one form elicitation and an opaque state", async () => {
    const first = await call("write_note", { path: "a.txt", text: "x" });
    expect(first.resultType).toBe("input_required");
    expect(Object.keys(first.inputRequests ?? {})).toEqual(["approval"]);
    expect(first.inputRequests!.approval).toMatchObject({ method: "elicitation/create", params: { mode: "form" } });
    expect(first.requestState).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(existsSync(path.join(ws.dir, "a.txt"))).toBe(false);

    const forged = await call("write_note", { path: "a.txt", text: "x" }, { inputResponses: accept, requestState: "forged-state" });
    expect(forged.isError).toBe(true);
    expect(textOf(forged)).toContain("no longer pending");

    const retargeted = await call("write_note", { path: "b.txt", text: "x" }, { inputResponses: accept, requestState: first.requestState });
    expect(retargeted.isError).toBe(true);
    expect(textOf(retargeted)).toContain("does not match");
    expect(existsSync(path.join(ws.dir, "b.txt"))).toBe(false);

    const ok = await call("write_note", { text: "x", path: "a.txt" }, { inputResponses: accept, requestState: first.requestState });
    expect(ok.isError ?? false).toBe(false);
    expect(textOf(ok)).toContain("Wrote a.txt");

    const replay = await call("write_note", { path: "a.txt", text: "x" }, { inputResponses: accept, requestState: first.requestState });
    expect(replay.isError).toBe(true);
    expect(textOf(replay)).toContain("no longer pending");
  });

  it("a retry without an answer rejects the call", async () => {
    const first = await call("write_note", { path: "c.txt", text: "x" });
    const empty = await call("write_note", { path: "c.txt", text: "x" }, { inputResponses: {}, requestState: first.requestState });
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toContain("not approved");
    expect(existsSync(path.join(ws.dir, "c.txt"))).toBe(false);
  });

  it("an approval nobody answers expires and the call is rejected, never run", async () => {
    const first = await call("write_note", { path: "late.txt", text: "x" });
    expect(first.resultType).toBe("input_required");
    await new Promise((r) => setTimeout(r, 800));
    const late = await call("write_note", { path: "late.txt", text: "x" }, { inputResponses: accept, requestState: first.requestState });
    expect(late.isError).toBe(true);
    expect(textOf(late)).toContain("no longer pending");
    expect(existsSync(path.join(ws.dir, "late.txt"))).toBe(false);
  });
});
