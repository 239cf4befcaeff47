// Spec 000 (Design: Tool System), read as its reader would: its tool list and conditional
// registration, the search-provider interface, the shared utilities, and MCP configuration as
// its McpServerConfig spells it.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import {
  BraveSearchProvider,
  createRegistry,
  GmailParser,
  htmlToText,
  loadConfig,
  McpManager,
  openSession,
  parseConfig,
  ToolRegistry,
  type SearchProvider,
} from "../../src/index.js";
import { createWebFetchTool } from "../../src/tools/web/web-fetch.js";
import { WebConfigSchema } from "../../src/tools/web/config.js";
import { fixtureServer, killLeftovers, uniqueMarker } from "../mcp/client/helpers.js";
import { useWorkspace } from "./helpers.js";

const ws = useWorkspace();

describe("spec 000: the tool registry", () => {
  it("always registers bash, the file tools, LinkedIn and web_fetch; the rest only with their credentials", async () => {
    const bare = await createRegistry(loadConfig({ dir: ws.dir, env: {} }), { toolset: "assistant" });
    for (const name of ["bash", "read_file", "write_file", "append_file", "linkedin_jobs", "linkedin_job_detail", "web_fetch"]) {
      expect(bare.has(name), name).toBe(true);
    }
    for (const name of ["gmail_search", "calendar_list_events", "anthropic_usage", "web_search"]) expect(bare.has(name), name).toBe(false);
    const env = { GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "secret", ANTHROPIC_ADMIN_API_KEY: "sk-ant-admin-x", BRAVE_API_KEY: "k" };
    const full = await createRegistry(loadConfig({ dir: ws.dir, env }), { toolset: "assistant" });
    for (const name of [
      "gmail_search",
      "gmail_read",
      "gmail_send",
      "calendar_list_events",
      "calendar_create_event",
      "calendar_get_event",
    ]) {
      expect(full.has(name), name).toBe(true);
    }
    expect(full.has("anthropic_usage")).toBe(true);
    expect(full.has("web_search")).toBe(true);
  });

  it("bash has the 30-second default; web_fetch returns at most 50,000 characters unless maxChars says otherwise", async () => {
    const registry = await createRegistry(loadConfig({ dir: ws.dir, env: {} }), { toolset: "assistant" });
    const bash = registry.getTool("bash")!;
    expect((bash.inputSchema as { properties: { timeout: { description: string } } }).properties.timeout.description).toContain(
      "default 30000",
    );
    // The runner's own limit for the call is the 30 s plus a grace period, not the shell's 120 s.
    expect(bash.timeoutMs!({} as never)).toBeGreaterThanOrEqual(30_000);
    expect(bash.timeoutMs!({} as never)).toBeLessThan(60_000);
    const fetch = registry.getTool("web_fetch")!.inputSchema as { properties: { maxChars: { default: number } } };
    expect(fetch.properties.maxChars.default).toBe(50_000);
  });

  it("ISearchProvider: another provider can replace Brave", async () => {
    const mine: SearchProvider = { name: "Mine", search: async () => [{ title: "T", url: "https://e.org", description: "D" }] };
    const registry = await createRegistry(loadConfig({ dir: ws.dir, env: {} }), { searchProvider: mine });
    expect(registry.has("web_search")).toBe(true);
    expect(new BraveSearchProvider({ apiKey: "k" }).name).toBe("Brave");
  });

  it("ISearchProvider as a TypeScript reader writes it (providerName, searchAsync) works; a wrong shape is refused when given", async () => {
    class MySearchProvider {
      readonly providerName = "MySearch";
      async searchAsync(query: string, count: number) {
        return Array.from({ length: count }, (_, i) => ({ Title: `${query} ${i}`, Url: `https://e.org/${i}`, Description: "D" }));
      }
    }
    const registry = await createRegistry(loadConfig({ dir: ws.dir, env: {} }), { searchProvider: new MySearchProvider() });
    const out = await registry.getTool("web_search")!.execute({ query: "tools", count: 2 });
    expect(out.content).toContain("via MySearch");
    expect(out.content).toContain("https://e.org/1");
    await expect(createRegistry(loadConfig({ dir: ws.dir, env: {} }), { searchProvider: { search: "no" } as never })).rejects.toThrow(
      /providerName, searchAsync/,
    );
  });

  it("web_fetch stopped by its caller comes back CANCELLED, not as a raw DOMException", async () => {
    const server = http.createServer(() => undefined); // never answers
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const tool = createWebFetchTool(WebConfigSchema.parse({ allowPrivateNetwork: true }));
      const controller = new AbortController();
      const call = tool.execute({ url } as never, { signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      await expect(call).rejects.toMatchObject({ name: "ToolError", code: "CANCELLED" });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("spec 000: shared utilities", () => {
  it("HtmlUtilities strips scripts and styles; GmailParser decodes base64url bodies and finds headers", () => {
    expect(htmlToText("<style>p{}</style><p>Hello&nbsp;<b>there</b></p><script>x()</script>")).toBe("Hello there");
    const data = Buffer.from("<p>Invoice</p>").toString("base64url");
    const message = {
      mimeType: "multipart/alternative",
      parts: [
        { mimeType: "text/plain", body: { data: Buffer.from("stub").toString("base64url") } },
        { mimeType: "text/html", body: { data } },
      ],
    };
    expect(GmailParser.extractText(message)).toBe("Invoice");
    expect(GmailParser.getHeader([{ name: "FROM", value: "a@b.c" }], "from")).toBe("a@b.c");
  });
});

describe("spec 000: MCP integration", () => {
  it("McpServerConfig as spec 000 spells it (Transport, Command, Args) connects, with tools named {server}__{tool}", async () => {
    const marker = uniqueMarker();
    const entry = fixtureServer(marker) as { command: string; args: string[] };
    const config = parseConfig({ mcpServers: { files: { Transport: "stdio", Command: entry.command, Args: entry.args } } });
    const registry = new ToolRegistry();
    const manager = new McpManager(config.mcpServers, { registry });
    try {
      await manager.connectAll();
      expect(registry.has("files__echo")).toBe(true);
    } finally {
      await manager.close();
      killLeftovers(marker);
    }
  });

  it("ConnectAllAsync and DisposeAsync by their TypeScript names, and await using on the manager and a session", async () => {
    const marker = uniqueMarker();
    const entry = fixtureServer(marker) as { command: string; args: string[] };
    const config = parseConfig({ mcpServers: { files: { Transport: "stdio", Command: entry.command, Args: entry.args } } });
    const registry = new ToolRegistry();
    try {
      {
        await using manager = new McpManager(config.mcpServers, { registry });
        expect((await manager.connectAllAsync()).map((t) => t.name)).toContain("files__echo");
      }
      expect(registry.has("files__echo")).toBe(false);
      const other = new McpManager(config.mcpServers, { registry });
      await other.connectAllAsync();
      await other.disposeAsync();
      expect(registry.has("files__echo")).toBe(false);
      let closed: Promise<void> | undefined;
      {
        await using session = await openSession({ workspace: ws.dir, mcp: false });
        const close = session.close.bind(session);
        session.close = () => (closed = close());
      }
      expect(closed).toBeDefined();
    } finally {
      killLeftovers(marker);
    }
  });
});

describe("spec 000: read_file walks up to the repository root", () => {
  const repo = useWorkspace({ "README.md": "the repository's readme\n", ".env": "KEY=secret\n" });

  async function sessionIn(config: object) {
    const sub = path.join(repo.dir, "docs", "guide");
    mkdirSync(path.join(repo.dir, ".git"), { recursive: true });
    mkdirSync(sub, { recursive: true });
    writeFileSync(path.join(sub, "tackle.config.json"), JSON.stringify(config));
    return openSession({ workspace: sub, mcp: false });
  }

  it("reads the repository root's README.md from a workspace in a subfolder, where the configuration's roots let it", async () => {
    const session = await sessionIn({ roots: [{ path: "../.." }] });
    try {
      const out = await session.runner.run({ name: "read_file", args: { path: "README.md" } });
      expect(out.status, out.content).toBe("success");
      expect(out.content).toContain("the repository's readme");
      // Still the boundary's rules: a secret up there is refused, and nothing above the repository is read.
      const secret = await session.runner.run({ name: "read_file", args: { path: ".env" } });
      expect(secret.error?.code).toBe("PERMISSION_DENIED");
      // The roots are read-only unless they say writable.
      const write = await session.runner.run({ name: "write_file", args: { path: path.join(repo.dir, "new.txt"), content: "x" } });
      expect(write.status).not.toBe("success");
      expect(existsSync(path.join(repo.dir, "new.txt"))).toBe(false);
    } finally {
      await session.close();
    }
  });

  it("without roots the file stays out of reach, and the error says how to let tools read it", async () => {
    const session = await sessionIn({});
    try {
      const out = await session.runner.run({ name: "read_file", args: { path: "README.md" } });
      expect(out.error?.code).toBe("FILE_NOT_FOUND");
      expect(out.content).toContain('"roots": [{ "path": "../.." }]');
      // A secret's presence is not told.
      const secret = await session.runner.run({ name: "read_file", args: { path: ".env" } });
      expect(secret.content).not.toContain("roots");
    } finally {
      await session.close();
    }
  });
});
