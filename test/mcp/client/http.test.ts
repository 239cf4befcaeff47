import { afterEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { McpManager } from "../../../src/mcp/client/manager.js";
import { startHttpFixture } from "../../fixtures/mcp/client-http-fixture.js";

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function connect(servers: Record<string, unknown>, vars: Record<string, string> = {}) {
  const registry = new ToolRegistry();
  const manager = new McpManager(servers, { registry, vars });
  cleanup.push(() => manager.close());
  await manager.connectAll();
  const runner = new ToolRunner({ registry, approval: "all", cache: false, retry: false });
  cleanup.push(() => runner.close());
  return { manager, registry, runner };
}

describe("McpManager over HTTP", () => {
  it("uses Streamable HTTP, with headers (variables expanded from the environment)", async () => {
    const fixture = await startHttpFixture("streamable");
    cleanup.push(() => fixture.close());
    const { manager, runner } = await connect(
      { web: { type: "http", url: fixture.url, headers: { authorization: "Bearer ${TOKEN}" } } },
      { TOKEN: "s3cret" },
    );
    expect(manager.connection("web")!.transportKind).toBe("http");
    const out = await runner.run({ name: "web__echo", args: { text: "over http" } });
    expect(out.status).toBe("success");
    expect(out.content).toContain("over http");
    expect(fixture.lastHeaders.authorization).toBe("Bearer s3cret");
  });

  it("falls back to the SSE transport for a server that only speaks it", async () => {
    const fixture = await startHttpFixture("sse-only");
    cleanup.push(() => fixture.close());
    const { manager, runner } = await connect({ old: { url: fixture.url } });
    expect(manager.connection("old")!.transportKind).toBe("sse");
    const out = await runner.run({ name: "old__echo", args: { text: "over sse" } });
    expect(out.content).toContain("over sse");
  });

  it("re-establishes a session the server no longer knows (404) and completes the call", async () => {
    const fixture = await startHttpFixture("streamable");
    cleanup.push(() => fixture.close());
    const { manager, runner } = await connect({ web: { url: fixture.url } });
    expect(fixture.sessionsCreated).toBe(1);
    fixture.forgetSessions();
    const out = await runner.run({ name: "web__echo", args: { text: "after 404" } });
    expect(out.status).toBe("success");
    expect(out.content).toContain("after 404");
    expect(fixture.sessionsCreated).toBe(2);
    expect(manager.connection("web")!.state).toBe("ready");
  });

  it("re-establishes an SSE session the server forgot", async () => {
    const fixture = await startHttpFixture("sse-only");
    cleanup.push(() => fixture.close());
    const { runner } = await connect({ old: { type: "sse", url: fixture.url } });
    fixture.forgetSessions();
    const out = await runner.run({ name: "old__echo", args: { text: "sse again" } });
    expect(out.content).toContain("sse again");
    expect(fixture.sessionsCreated).toBe(2);
  });

  it("skips an unreachable server with a clear reason, quickly", async () => {
    const fixture = await startHttpFixture("streamable");
    const url = fixture.url;
    await fixture.close();
    const { manager } = await connect({ gone: { url, timeoutMs: 5_000 } });
    const status = manager.status()[0]!;
    expect(status.state).toBe("failed");
    expect(status.error).toMatch(/not reachable/);
  });
});
