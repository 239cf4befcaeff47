import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { startServe, type ServeHandle } from "../../../src/serve/server.js";
import { spawnEnv, tempDir } from "../../support/tools.js";
import { ROOT, textOf, TSX, waitFor } from "./helpers.js";

/*
 * The approval desk on one machine: `tackle mcp`, spawned by a client that cannot ask its person
 * (opencode advertises only roots), sends such calls to the store; `tackle serve` in the same
 * workspace shows them, a person answers there, and the MCP call completes.
 */

const TACKLE = { command: process.execPath, args: ["--import", TSX, path.join(ROOT, "src/cli/main.ts")] };

const open: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

/** An MCP client like opencode's: roots, no elicitation. */
async function mcpClient(workspace: string, extra: string[] = []): Promise<Client> {
  const client = new Client({ name: "no-elicitation", version: "1.0.0" }, { capabilities: { roots: {} } });
  const transport = new StdioClientTransport({
    command: TACKLE.command,
    args: [...TACKLE.args, "mcp", "--workspace", workspace, ...extra],
    cwd: workspace,
    env: spawnEnv(),
    stderr: "pipe",
  });
  await client.connect(transport);
  open.push(() => client.close());
  return client;
}

async function serve(workspace: string): Promise<ServeHandle> {
  const handle = await startServe({ workspace, port: 0, mcp: false });
  open.push(() => handle.close());
  return handle;
}

async function api(handle: ServeHandle, route: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(new URL(route, handle.url), {
    method: body === undefined ? "GET" : "POST",
    ...(body === undefined ? {} : { headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

/** A workspace with files to overwrite: writing a new file needs nobody (spec 003), replacing one does. */
function workspace(): string {
  const ws = tempDir("tackle-desk-");
  open.push(() => ws.cleanup());
  for (const name of ["from-mcp.txt", "notes.txt", "x.txt", "y.txt"]) writeFileSync(path.join(ws.dir, name), "old\n");
  // The clients here replace files they never read, to be asked about it.
  writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ staleEditGuard: false }));
  return ws.dir;
}

describe("the approval desk for tackle mcp", () => {
  it("a call the client cannot ask about waits on tackle serve's desk, is approved there, and completes", async () => {
    const dir = workspace();
    const desk = await serve(dir);
    const client = await mcpClient(dir);
    const call = client.callTool({ name: "write_file", arguments: { path: "from-mcp.txt", content: "hello\n" } });
    const waiting = await waitFor(async () => (await api(desk, "/api/approvals")).json.find((a: any) => a.tool === "write_file"), 60_000);
    expect(waiting).toMatchObject({ orphaned: false, args: { path: "from-mcp.txt" }, alwaysRules: ["write_file(from-mcp.txt)"] });
    expect(waiting.id).toMatch(/^desk_/);
    expect(waiting.instance).not.toContain(`:${process.pid}:`);
    const answered = await api(desk, `/api/approvals/${waiting.id}/approve`, { by: "ann" });
    expect(answered.json).toMatchObject({ ok: true, approved: true });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(path.join(dir, "from-mcp.txt"), "utf8")).toBe("hello\n");
    expect(await api(desk, "/api/approvals")).toMatchObject({ json: [] });
    // A second answer is told who answered first.
    const late = await api(desk, `/api/approvals/${waiting.id}/reject`, { by: "bob" });
    expect(late.status).toBe(409);
    expect(late.json.error).toMatch(/Already answered: approved by ann/);
  }, 120_000);

  it("always at the desk keeps a rule for every agent on it, with its origin", async () => {
    const dir = workspace();
    const desk = await serve(dir);
    const client = await mcpClient(dir);
    const first = client.callTool({ name: "write_file", arguments: { path: "notes.txt", content: "1\n" } });
    const waiting = await waitFor(async () => (await api(desk, "/api/approvals")).json[0], 60_000);
    await api(desk, `/api/approvals/${waiting.id}/approve`, { always: true, by: "ann" });
    expect((await first).isError).toBeFalsy();
    const rules = (await api(desk, "/api/rules")).json;
    expect(rules.shared).toMatchObject([{ rule: "write_file(notes.txt)", origin: "approval", by: "ann", tool: "write_file" }]);
    expect(rules.tools.write_file.always).toContain("write_file(notes.txt)");
    // The same call again, from another agent on the same desk, runs without asking anyone.
    const other = await mcpClient(dir);
    const again = await other.callTool({ name: "write_file", arguments: { path: "notes.txt", content: "2\n" } });
    expect(again.isError).toBeFalsy();
    expect(readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("2\n");
  }, 120_000);

  it("with nobody at a desk, such a call is refused at once with the way to route it there", async () => {
    const dir = workspace();
    const client = await mcpClient(dir);
    const result = await client.callTool({ name: "write_file", arguments: { path: "x.txt", content: "x" } });
    expect(result.isError).toBe(true);
    expect(textOf(result as Record<string, unknown>)).toMatch(/does not support elicitation.*tackle serve/s);
    expect(readFileSync(path.join(dir, "x.txt"), "utf8")).toBe("old\n");
  }, 120_000);

  it("--approvals client never uses the desk; a rejection at the desk reaches the model with the person's words", async () => {
    const dir = workspace();
    const desk = await serve(dir);
    const clientOnly = await mcpClient(dir, ["--approvals", "client"]);
    const refused = await clientOnly.callTool({ name: "write_file", arguments: { path: "x.txt", content: "x" } });
    expect(refused.isError).toBe(true);
    expect((await api(desk, "/api/approvals")).json).toEqual([]);
    const viaDesk = await mcpClient(dir, ["--approvals", "desk"]);
    const call = viaDesk.callTool({ name: "write_file", arguments: { path: "y.txt", content: "y" } });
    const waiting = await waitFor(async () => (await api(desk, "/api/approvals")).json[0], 60_000);
    await api(desk, `/api/approvals/${waiting.toolCallId}/reject`, { message: "not that file" });
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result as Record<string, unknown>)).toMatch(/not that file/);
    expect(readFileSync(path.join(dir, "y.txt"), "utf8")).toBe("old\n");
  }, 120_000);
});
