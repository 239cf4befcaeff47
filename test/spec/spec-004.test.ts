// Spec 004 (Design: Tool System), read as its reader would: configuration naming the documents
// folder, its tool list with Gmail only when both Google credentials are present, and the parser.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRegistry, GmailParser, loadConfig, ToolRunner } from "../../src/index.js";
import { useWorkspace } from "./helpers.js";

const ws = useWorkspace();

describe("spec 004", () => {
  it("DocumentsDirectory in config.json is where read_file and write_file work", async () => {
    mkdirSync(path.join(ws.dir, "docs"));
    writeFileSync(path.join(ws.dir, "docs", "letter.txt"), "Dear reader\n");
    writeFileSync(path.join(ws.dir, "config.json"), JSON.stringify({ DocumentsDirectory: "docs" }));
    const loaded = loadConfig({ dir: ws.dir, env: {} });
    expect(loaded.workspace).toBe(path.join(ws.dir, "docs"));
    const registry = await createRegistry(loaded, { toolset: "assistant" });
    const runner = new ToolRunner({ registry, workspace: loaded.workspace, approval: "all" });
    expect((await runner.run({ name: "read_file", args: { path: "letter.txt" } })).content).toContain("Dear reader");
    await runner.close();
  });

  it("Gmail tools are registered only when both Google credentials are present", async () => {
    const withOne = await createRegistry(loadConfig({ dir: ws.dir, env: { GOOGLE_CLIENT_ID: "id" } }), { toolset: "assistant" });
    expect(withOne.has("gmail_search")).toBe(false);
    const withBoth = await createRegistry(loadConfig({ dir: ws.dir, env: { GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "s" } }), {
      toolset: "assistant",
    });
    for (const name of ["gmail_search", "gmail_read", "gmail_send"]) expect(withBoth.has(name), name).toBe(true);
    for (const name of ["bash", "read_file", "write_file", "linkedin_jobs", "linkedin_job_detail"])
      expect(withBoth.has(name), name).toBe(true);
  });

  it("GmailParser prefers the HTML part of multipart/alternative, as text", () => {
    const part = (mimeType: string, text: string) => ({ mimeType, body: { data: Buffer.from(text).toString("base64url") } });
    const message = {
      mimeType: "multipart/alternative",
      parts: [part("text/plain", "see HTML"), part("text/html", "<h1>Hello</h1><p>World</p>")],
    };
    expect(GmailParser.extractText(message)).toMatch(/Hello\s+World/);
  });
});
