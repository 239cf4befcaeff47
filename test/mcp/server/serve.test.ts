import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toMcpTools } from "../../../src/adapters/mcp.js";
import { servedRegistry } from "../../fixtures/mcp/served-tools.js";
import { tempDir } from "../../support/tools.js";
import { connect, isAlive, spawnHttpServer, textOf, waitFor, type Era, type SpawnedServer, type TestClient, type Wire } from "./helpers.js";

const MATRIX: Array<{ era: Era; wire: Wire }> = [
  { era: "v1", wire: "stdio" },
  { era: "v1", wire: "http" },
  { era: "v2", wire: "stdio" },
  { era: "v2", wire: "http" },
];

for (const { era, wire } of MATRIX) {
  describe(`tackle MCP server: ${era === "v1" ? "1.x SDK client (2025 protocol)" : "2.x SDK client (2026-07-28)"} over ${wire}`, () => {
    let ws: { dir: string; cleanup: () => void };
    let server: SpawnedServer | undefined;
    let client: TestClient;
    let mute: TestClient;
    const pids: number[] = [];

    beforeAll(async () => {
      ws = tempDir("tackle-mcp-serve-");
      const serverArgs = ["--workspace", ws.dir, "--approval", "safe"];
      if (wire === "http") server = await spawnHttpServer(serverArgs);
      const common = { era, wire, serverArgs, ...(server ? { url: server.url } : {}) };
      [client, mute] = await Promise.all([connect(common), connect({ ...common, elicitation: false })]);
      for (const c of [client, mute]) if (c.pid) pids.push(c.pid);
    });

    afterAll(async () => {
      await Promise.allSettled([client?.close(), mute?.close()]);
      if (server) expect(await server.stop()).toBe(0);
      // stdio servers exit when their stdin closes.
      for (const pid of pids) await waitFor(() => !isAlive(pid));
      ws?.cleanup();
    });

    it("negotiates the expected protocol era", () => {
      const version = client.protocolVersion();
      if (era === "v2") expect(version).toBe("2026-07-28");
      else if (version !== undefined) expect(version < "2026-07-28").toBe(true);
    });

    it("lists every registered tool with its schemas and effect annotations", async () => {
      const listed = await client.listTools();
      const expected = toMcpTools(servedRegistry());
      expect(listed.map((t) => t.name)).toEqual(expected.map((t) => t.name));
      for (const tool of expected) {
        const got = listed.find((t) => t.name === tool.name)!;
        expect(got.description).toBe(tool.description);
        expect(got.title).toBe(tool.title);
        expect(got.inputSchema).toEqual(tool.inputSchema);
        expect(got.outputSchema).toEqual(tool.outputSchema);
        expect(got.annotations).toEqual(tool.annotations);
      }
      expect(listed.find((t) => t.name === "echo")!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(listed.find((t) => t.name === "write_note")!.annotations).toMatchObject({ readOnlyHint: false });
    });

    it("returns text and structuredContent, other blocks, and isError for failures", async () => {
      const echo = await client.callTool("echo", { text: "hello" });
      expect(textOf(echo)).toBe("hello");
      expect(echo.structuredContent).toEqual({ echo: "hello", length: 5 });
      expect(echo.isError ?? false).toBe(false);

      const picture = await client.callTool("picture", {});
      expect(picture.content).toContainEqual(expect.objectContaining({ type: "image", mimeType: "image/png" }));

      const fail = await client.callTool("fail", {});
      expect(fail.isError).toBe(true);
      expect(textOf(fail)).toContain("it broke");

      const unknown = await client.callTool("ecko", { text: "x" });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toContain('Did you mean "echo"');

      const invalid = await client.callTool("echo", { text: 42 });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toContain("INVALID_ARGS");
    });

    it("asks the person through elicitation; accept runs the call", async () => {
      client.answer = { action: "accept", content: { approve: true } };
      const before = client.elicitations.length;
      const result = await client.callTool("write_note", { path: "accepted.txt", text: "yes" });
      expect(result.isError ?? false).toBe(false);
      expect(textOf(result)).toContain("Wrote accepted.txt");
      expect(readFileSync(path.join(ws.dir, "accepted.txt"), "utf8")).toBe("yes");
      expect(client.elicitations.length).toBe(before + 1);
      const asked = client.elicitations.at(-1)!;
      expect(String(asked.message)).toContain("write_note");
      expect(String(asked.message)).toContain("accepted.txt");
      expect((asked.requestedSchema as { properties: Record<string, unknown> }).properties).toHaveProperty("approve");
    });

    it("shows the person what the model chose written out, never obeyed: escapes, reordering marks, tags, runs of spaces", async () => {
      client.answer = { action: "decline" };
      const tags = String.fromCodePoint(0xe0049, 0xe0067);
      await client.callTool("write_note", {
        path: "shown.txt",
        text: `\u001b[2J\u009b31m\u202eevil${tags}${" ".repeat(300)}hidden end`,
      });
      const message = String(client.elicitations.at(-1)!.message);
      expect(message).toContain("write_note");
      expect(message).not.toMatch(/[\u001b\u009b\u202e]|\u{e0049}/u);
      expect(message).toContain("\\u202eevil\\u{e0049}\\u{e0067} [300 spaces] hidden end");
    });

    it("decline rejects the call and nothing runs", async () => {
      client.answer = { action: "decline" };
      const result = await client.callTool("write_note", { path: "declined.txt", text: "no" });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("not approved");
      expect(existsSync(path.join(ws.dir, "declined.txt"))).toBe(false);
    });

    it("cancel rejects the call, and a refusal carries the person's message to the model", async () => {
      client.answer = { action: "cancel" };
      const cancelled = await client.callTool("write_note", { path: "cancelled-approval.txt", text: "no" });
      expect(cancelled.isError).toBe(true);
      expect(existsSync(path.join(ws.dir, "cancelled-approval.txt"))).toBe(false);

      client.answer = { action: "accept", content: { approve: false, message: "use notes/ instead" } };
      const refused = await client.callTool("write_note", { path: "refused.txt", text: "no" });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain("use notes/ instead");
      expect(existsSync(path.join(ws.dir, "refused.txt"))).toBe(false);
    });

    it("the person may edit the arguments; they are validated again, and broken edits do not run", async () => {
      client.answer = { action: "accept", content: { approve: true, arguments: JSON.stringify({ path: "edited.txt", text: "changed" }) } };
      const edited = await client.callTool("write_note", { path: "original.txt", text: "first" });
      expect(textOf(edited)).toContain("Wrote edited.txt");
      expect(readFileSync(path.join(ws.dir, "edited.txt"), "utf8")).toBe("changed");
      expect(existsSync(path.join(ws.dir, "original.txt"))).toBe(false);

      client.answer = { action: "accept", content: { approve: true, arguments: "{not json" } };
      const broken = await client.callTool("write_note", { path: "original.txt", text: "first" });
      expect(broken.isError).toBe(true);
      expect(textOf(broken)).toContain("not valid JSON");

      client.answer = { action: "accept", content: { approve: true, arguments: JSON.stringify({ path: 42 }) } };
      const invalid = await client.callTool("write_note", { path: "original.txt", text: "first" });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toContain("INVALID_ARGS");
      expect(existsSync(path.join(ws.dir, "original.txt"))).toBe(false);
    });

    it("a client that cannot elicit gets a rejection, never a run; reads still run", async () => {
      const result = await mute.callTool("write_note", { path: "unasked.txt", text: "no" });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("does not support elicitation");
      expect(existsSync(path.join(ws.dir, "unasked.txt"))).toBe(false);
      expect(textOf(await mute.callTool("echo", { text: "read" }))).toBe("read");
    });

    it("turns output and progress into progress notifications", async () => {
      const seen: Array<{ progress: number; total?: number; message?: string }> = [];
      const result = await client.callTool("slow", { steps: 3, delayMs: 5 }, { onprogress: (p) => seen.push(p) });
      expect(textOf(result)).toBe("counted to 3");
      // The server sends every notification before the result (wire.test.ts checks the bytes), but SDK
      // clients dispatch notifications a microtask after settling the response, so the last ones
      // can be dropped on their side.
      await waitFor(() => seen.length >= 2, 2000);
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
      expect(seen[0]!.message).toBe("step 1\n");
      expect(seen[1]).toMatchObject({ total: 3, message: "step 1 of 3" });
    });

    it("a client's cancellation aborts the running tool", async () => {
      const controller = new AbortController();
      const call = client.callTool(
        "slow",
        { steps: 2000, delayMs: 20 },
        { signal: controller.signal, onprogress: () => controller.abort() },
      );
      await expect(call).rejects.toThrow();
      await waitFor(() => existsSync(path.join(ws.dir, "cancelled.txt")));
    });

    it("announces tool list changes with notifications/tools/list_changed", async () => {
      const changed = client.nextListChanged();
      const added = textOf(await client.callTool("add_tool", {}));
      await changed;
      const names = (await client.listTools()).map((t) => t.name);
      expect(names).toContain(added);
    });

    // Last: "always" widens what the session allows without asking.
    it('"always" approves this call and later ones like it without asking again', async () => {
      client.answer = { action: "accept", content: { approve: true, always: true } };
      const before = client.elicitations.length;
      await client.callTool("write_note", { path: "always-1.txt", text: "1" });
      expect(client.elicitations.length).toBe(before + 1);
      const second = await client.callTool("write_note", { path: "always-2.txt", text: "2" });
      expect(second.isError ?? false).toBe(false);
      expect(client.elicitations.length).toBe(before + 1);
      expect(readFileSync(path.join(ws.dir, "always-2.txt"), "utf8")).toBe("2");
    });

    // 2025-era connections each have their own scope; 2026-era requests carry no connection to tell apart.
    if (era === "v1") {
      it('"always" stays with the client that said it', async () => {
        const other = await mute.callTool("write_note", { path: "always-3.txt", text: "3" });
        expect(other.isError).toBe(true);
        expect(existsSync(path.join(ws.dir, "always-3.txt"))).toBe(false);
      });
    }
  });
}
