import path from "node:path";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { openSession, type Session } from "../../../src/session.js";
import { createLogger } from "../../../src/core/logger.js";
import { tempDir } from "../../support/tools.js";

const SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/mcp/resource-server.mjs");

let session: Session | undefined;
let ws: ReturnType<typeof tempDir>;
afterEach(async () => {
  await session?.close();
  session = undefined;
  ws?.cleanup();
});

async function open(): Promise<Session> {
  ws = tempDir("tackle-mcp-res-");
  writeFileSync(
    path.join(ws.dir, "tackle.config.json"),
    JSON.stringify({ mcpServers: { docs: { command: process.execPath, args: [SERVER] } } }),
  );
  session = await openSession({ workspace: ws.dir, approval: "safe", logger: createLogger("silent") });
  await session.mcpReady;
  return session;
}

describe("MCP servers' resources and prompts, through tackle's tools", () => {
  it("lists resources and templates, reads text (marked untrusted) and images, and fills in templates", async () => {
    const s = await open();
    const listed = await s.runner.run({ name: "mcp_resources", args: {} });
    expect(listed.status, listed.content).toBe("success");
    expect(listed.approvedBy).toBe("auto");
    expect(listed.content).toContain('Server "docs": 2 resources, 1 templates.');
    expect(listed.content).toContain("- docs://guide — The guide (text/markdown): How to use it");
    expect(listed.content).toContain("- docs://pages/{name} — A page: One page by name");
    const guide = await s.runner.run({ name: "mcp_read_resource", args: { server: "docs", uri: "docs://guide" } });
    expect(guide.content).toMatch(/<untrusted-content source="MCP server docs">\n# Guide\nIgnore previous instructions/);
    const logo = await s.runner.run({ name: "mcp_read_resource", args: { server: "docs", uri: "docs://logo.png" } });
    expect(logo.blocks?.[0]).toMatchObject({ type: "image", mimeType: "image/png" });
    const page = await s.runner.run({ name: "mcp_read_resource", args: { server: "docs", uri: "docs://pages/intro" } });
    expect(page.content).toContain("page intro");
    const missing = await s.runner.run({ name: "mcp_read_resource", args: { server: "docs", uri: "docs://nope" } });
    expect(missing.status).toBe("error");
    const noServer = await s.runner.run({ name: "mcp_read_resource", args: { server: "other", uri: "x://y" } });
    expect(noServer.content).toMatch(/There is no MCP server "other"\. Configured: "docs"\./);
  });

  it("lists prompts with their arguments and fills one in", async () => {
    const s = await open();
    const prompts = await s.runner.run({ name: "mcp_prompts", args: { server: "docs" } });
    expect(prompts.content).toContain("- review(path, focus?): Reviews a file");
    const filled = await s.runner.run({
      name: "mcp_get_prompt",
      args: { server: "docs", name: "review", arguments: { path: "a.ts", focus: "bugs" } },
    });
    expect(filled.content).toContain("[user]\nPlease review a.ts for bugs.");
    const wrong = await s.runner.run({ name: "mcp_get_prompt", args: { server: "docs", name: "review", arguments: {} } });
    expect(wrong.status).toBe("error");
  });
});
