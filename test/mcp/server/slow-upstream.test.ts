import { writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir, spawnEnv } from "../../support/tools.js";
import { fixtureServer, killLeftovers, uniqueMarker } from "../client/helpers.js";
import { ROOT, TSX, waitFor } from "./helpers.js";

const TACKLE = { command: process.execPath, args: ["--import", TSX, path.join(ROOT, "src/cli/main.ts")] };

/** `tackle mcp` over stdio on the test's workspace, from source, with the suite's environment. */
const tackleMcp = () =>
  new StdioClientTransport({ env: spawnEnv(), ...TACKLE, args: [...TACKLE.args, "mcp", "--workspace", ws.dir], stderr: "pipe" });

let ws: ReturnType<typeof tempDir>;
let marker: string;
let client: Client | undefined;
beforeEach(() => {
  ws = tempDir("tackle-mcp-upstream-");
  marker = uniqueMarker();
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  killLeftovers(marker);
  ws.cleanup();
});

describe("tackle mcp with MCP servers of its own that are slow or silent", () => {
  it("answers tools/list at once, then announces the slow server's tools with list_changed", async () => {
    const go = path.join(ws.dir, "go");
    writeFileSync(
      path.join(ws.dir, "tackle.config.json"),
      JSON.stringify({
        approval: "all",
        mcpServers: {
          silent: fixtureServer(marker, { connectTimeoutMs: 600_000 }, ["--mode", "hang"]),
          slow: fixtureServer(marker, {}, ["--name", "slow", "--start-after", go]),
        },
      }),
    );
    client = new Client({ name: "upstream-test", version: "1.0.0" });
    let changed!: () => void;
    const listChanged = new Promise<void>((resolve) => (changed = resolve));
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changed());
    await client.connect(tackleMcp());
    const first = (await client.listTools()).tools.map((t) => t.name);
    expect(first).toContain("read_file");
    expect(first).not.toContain("slow__echo");
    writeFileSync(go, "");
    await listChanged;
    // The first announcement may be of the resource tools (mcp_resources, ...), which join as the servers start.
    const later = await waitFor(async () => {
      const names = (await client!.listTools()).tools.map((t) => t.name);
      return names.includes("slow__echo") && names;
    }, 60_000);
    expect(later).toContain("mcp_read_resource");
    const result = await client.callTool({ name: "slow__echo", arguments: { text: "through tackle" } });
    expect(JSON.stringify(result.content)).toContain("through tackle");
  }, 120_000);

  it("spawns its servers after the first tools/list, or for a call that needs one of their tools", async () => {
    writeFileSync(
      path.join(ws.dir, "tackle.config.json"),
      JSON.stringify({ approval: "all", mcpServers: { up: fixtureServer(marker, {}, ["--name", "up"]) } }),
    );
    client = new Client({ name: "upstream-test", version: "1.0.0" });
    await client.connect(tackleMcp());
    // No tools/list first: the call itself brings the server up and waits for its tool.
    const result = await client.callTool({ name: "up__echo", arguments: { text: "called before any list" } });
    expect(JSON.stringify(result.content)).toContain("called before any list");
  }, 120_000);
});
