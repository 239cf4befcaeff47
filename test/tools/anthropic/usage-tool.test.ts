import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { anthropicTools } from "../../../src/tools/anthropic/index.js";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { silentLogger } from "../../../src/core/logger.js";
import type { AnyTool } from "../../../src/core/tool.js";
import { ADMIN_KEY, FakeAdminApi, usageBucket } from "../../fixtures/anthropic/fake-admin-api.js";

let api: FakeAdminApi;
let workspace: string;

function group(
  env: Record<string, string | undefined>,
  services: Record<string, unknown> = { anthropic: { baseUrl: api.url, timeoutMs: 1500 } },
) {
  return anthropicTools({ config: { services: services as never }, env, workspace, logger: silentLogger }) as AnyTool[];
}

function tool(): AnyTool {
  return group({ ANTHROPIC_ADMIN_API_KEY: ADMIN_KEY })[0]!;
}

const runners: ToolRunner[] = [];

function runner(
  t: AnyTool = tool(),
  retry: ConstructorParameters<typeof ToolRunner>[0]["retry"] = { retries: 2, baseDelayMs: 1, maxDelayMs: 50 },
): ToolRunner {
  const r = new ToolRunner({ registry: registryOf(t), workspace, cache: false, retry });
  runners.push(r);
  return r;
}

beforeAll(async () => {
  api = await new FakeAdminApi().start();
  workspace = mkdtempSync(path.join(tmpdir(), "tackle-anthropic-"));
});
afterAll(async () => {
  await api.stop();
  rmSync(workspace, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.close()));
  api.requests.length = 0;
  api.script.length = 0;
});

describe("anthropic group registration", () => {
  it("registers anthropic_usage only when ANTHROPIC_ADMIN_API_KEY is set", () => {
    expect(group({})).toEqual([]);
    expect(group({ ANTHROPIC_ADMIN_API_KEY: "  " })).toEqual([]);
    expect(group({ ANTHROPIC_ADMIN_API_KEY: ADMIN_KEY }).map((t) => t.name)).toEqual(["anthropic_usage"]);
  });

  it("is a read tool, idempotent", () => {
    const t = tool();
    expect(t.effect).toBe("read");
    expect(t.annotations.readOnlyHint).toBe(true);
  });

  it("refuses an invalid services.anthropic section with the field named", () => {
    expect(() => group({ ANTHROPIC_ADMIN_API_KEY: ADMIN_KEY }, { anthropic: { baseUrl: "ftp://x" } })).toThrow(
      /services\.anthropic.*baseUrl/,
    );
  });
});

describe("anthropic_usage against the fake Admin API", () => {
  it("usage: sends the documented request and summarises tokens", async () => {
    const outcome = await runner().run({
      name: "anthropic_usage",
      args: {
        action: "usage",
        starting_at: "2026-11-01",
        ending_at: "2026-11-03T00:00:00Z",
        bucket_width: "1d",
        group_by: ["model", "workspace_id"],
        limit: 7,
      },
    });
    expect(outcome.status).toBe("success");
    const req = api.requests[0]!;
    expect(req.path).toBe("/v1/organizations/usage_report/messages");
    expect(req.headers["x-api-key"]).toBe(ADMIN_KEY);
    expect(req.headers["anthropic-version"]).toBe("2023-06-01");
    expect(req.query.get("starting_at")).toBe("2026-11-01T00:00:00Z");
    expect(req.query.get("ending_at")).toBe("2026-11-03T00:00:00Z");
    expect(req.query.get("bucket_width")).toBe("1d");
    expect(req.query.getAll("group_by[]")).toEqual(["model", "workspace_id"]);
    expect(req.query.get("limit")).toBe("7");
    expect(outcome.content).toContain(
      "model=claude-sonnet-4-20250514: input 1,500 · cache read 200 · cache write 150 · output 500 · web searches 2",
    );
    expect(outcome.content).toContain("Total: input 3,000");
  });

  it("accepts a base URL written with /v1/organizations, as spec 000 gives it", async () => {
    const t = group({ ANTHROPIC_ADMIN_API_KEY: ADMIN_KEY }, { anthropic: { baseUrl: `${api.url}/v1/organizations` } })[0]!;
    const outcome = await runner(t).run({ name: "anthropic_usage", args: { action: "cost", starting_at: "2026-11-01" } });
    expect(outcome.status).toBe("success");
    expect(api.requests[0]!.path).toBe("/v1/organizations/cost_report");
  });

  it("accepts a single group_by string as a list of one", async () => {
    const outcome = await runner().run({
      name: "anthropic_usage",
      args: { action: "usage", starting_at: "2026-11-01T00:00:00Z", bucket_width: "1h", group_by: "model" },
    });
    expect(outcome.status).toBe("success");
    expect(api.requests[0]!.query.getAll("group_by[]")).toEqual(["model"]);
    expect(api.requests[0]!.query.get("bucket_width")).toBe("1h");
  });

  it("cost: converts cents (decimal strings) to amount_usd", async () => {
    const outcome = await runner().run({
      name: "anthropic_usage",
      args: { action: "cost", starting_at: "2026-11-01", group_by: ["workspace_id", "description"] },
    });
    expect(outcome.status).toBe("success");
    expect(api.requests[0]!.path).toBe("/v1/organizations/cost_report");
    const data = (outcome.structured as { data: Array<{ results: Array<Record<string, unknown>> }> }).data;
    expect(data[0]!.results[0]!["amount_usd"]).toBe(1.2345);
    expect(data[0]!.results[1]!["amount_usd"]).toBe(0.001);
    expect(data[0]!.results[0]).not.toHaveProperty("amount");
    expect(outcome.content).toContain("$1.2355");
    expect(outcome.content).toContain("description=Web Search, workspace_id=wrkspc_01, cost_type=web_search: $0.001");
  });

  it("claude_code: passes the date as is and summarises the record", async () => {
    const outcome = await runner().run({ name: "anthropic_usage", args: { action: "claude_code", starting_at: "2026-11-01", limit: 20 } });
    expect(outcome.status).toBe("success");
    const req = api.requests[0]!;
    expect(req.path).toBe("/v1/organizations/usage_report/claude_code");
    expect(req.query.get("starting_at")).toBe("2026-11-01");
    expect(req.query.has("bucket_width")).toBe(false);
    expect(outcome.content).toContain("dev@example.com: sessions 3 · lines +120/-30 · commits 2 · PRs 1");
    expect(outcome.content).toContain("est. cost $2.50");
  });

  it("follows next_page while has_more", async () => {
    api.usagePages = [[usageBucket("2026-11-01")], [usageBucket("2026-11-02")], [usageBucket("2026-11-03")]];
    try {
      const outcome = await runner().run({ name: "anthropic_usage", args: { action: "usage", starting_at: "2026-11-01" } });
      expect(outcome.status).toBe("success");
      expect(api.requests.map((r) => r.query.get("page"))).toEqual([null, "page_1", "page_2"]);
      expect((outcome.structured as { data: unknown[] }).data).toHaveLength(3);
    } finally {
      api.usagePages = [[usageBucket("2026-11-01"), usageBucket("2026-11-02")]];
    }
  });

  it("stops at the page bound and says more exists", async () => {
    api.usagePages = Array.from({ length: 15 }, (_, i) => [usageBucket(`2026-10-${String(i + 1).padStart(2, "0")}`)]);
    try {
      const outcome = await runner().run({ name: "anthropic_usage", args: { action: "usage", starting_at: "2026-10-01" } });
      expect(outcome.status).toBe("success");
      expect(api.requests).toHaveLength(10);
      expect(outcome.content).toMatch(/Stopped after 10 pages; more data exists/);
    } finally {
      api.usagePages = [[usageBucket("2026-11-01"), usageBucket("2026-11-02")]];
    }
  });

  it("refuses a next_page cursor that repeats", async () => {
    api.script.push(
      { status: 200, body: JSON.stringify({ data: [], has_more: true, next_page: "same" }) },
      { status: 200, body: JSON.stringify({ data: [], has_more: true, next_page: "same" }) },
    );
    const outcome = await runner().run({ name: "anthropic_usage", args: { action: "usage", starting_at: "2026-11-01" } });
    expect(outcome.status).toBe("error");
    expect(outcome.content).toMatch(/repeats/);
  });
});

describe("anthropic_usage refuses invalid combinations before any request", () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["cost with 1h buckets", { action: "cost", starting_at: "2026-11-01", bucket_width: "1h" }, /only 1d/],
    ["claude_code with a datetime", { action: "claude_code", starting_at: "2026-11-01T00:00:00Z" }, /YYYY-MM-DD/],
    ["claude_code with an impossible date", { action: "claude_code", starting_at: "2026-02-30" }, /YYYY-MM-DD/],
    ["claude_code with bucket_width", { action: "claude_code", starting_at: "2026-11-01", bucket_width: "1d" }, /no bucket_width/],
    ["claude_code with group_by", { action: "claude_code", starting_at: "2026-11-01", group_by: ["model"] }, /cannot be grouped/],
    ["an unknown usage group_by", { action: "usage", starting_at: "2026-11-01", group_by: ["colour"] }, /"colour" is not a usage grouping/],
    ["a usage-only grouping on cost", { action: "cost", starting_at: "2026-11-01", group_by: ["model"] }, /"model" is not a cost grouping/],
    ["a starting_at without a zone", { action: "usage", starting_at: "2026-11-01T10:00:00" }, /RFC 3339/],
    ["garbage starting_at", { action: "usage", starting_at: "last week" }, /RFC 3339/],
    ["ending_at before starting_at", { action: "usage", starting_at: "2026-11-05", ending_at: "2026-11-01" }, /after starting_at/],
    ["a limit above the 1h maximum", { action: "usage", starting_at: "2026-11-01", bucket_width: "1h", limit: 500 }, /at most 168/],
    ["an unknown action", { action: "billing", starting_at: "2026-11-01" }, /action/],
    ["a missing starting_at", { action: "usage" }, /starting_at/],
  ];
  for (const [what, args, message] of cases) {
    it(what, async () => {
      const outcome = await runner().run({ name: "anthropic_usage", args });
      expect(outcome.status).toBe("error");
      expect(outcome.error?.code).toBe("INVALID_ARGS");
      expect(outcome.content).toMatch(message);
      expect(api.requests).toHaveLength(0);
    });
  }
});

describe("anthropic_usage failures", () => {
  const args = { action: "usage", starting_at: "2026-11-01" };

  it("401: a wrong key gets a clear, non-recoverable message", async () => {
    const t = group({ ANTHROPIC_ADMIN_API_KEY: "sk-ant-admin01-wrong" })[0]!;
    const outcome = await runner(t).run({ name: "anthropic_usage", args });
    expect(outcome.error?.code).toBe("PERMISSION_DENIED");
    expect(outcome.error?.recoverable).toBe(false);
    expect(outcome.content).toMatch(/rejected the key.*authentication_error: invalid x-api-key.*ANTHROPIC_ADMIN_API_KEY/);
    expect(api.requests).toHaveLength(1);
  });

  it("403 is a permission error", async () => {
    api.script.push({ status: 403, body: JSON.stringify({ type: "error", error: { type: "permission_error", message: "not an admin" } }) });
    const outcome = await runner().run({ name: "anthropic_usage", args });
    expect(outcome.error?.code).toBe("PERMISSION_DENIED");
    expect(outcome.content).toMatch(/permission_error: not an admin/);
  });

  it("429 with Retry-After: the runner retries the read and succeeds", async () => {
    api.script.push({
      status: 429,
      headers: { "retry-after": "0" },
      body: JSON.stringify({ type: "error", error: { type: "rate_limit_error", message: "slow down" } }),
    });
    const outcome = await runner().run({ name: "anthropic_usage", args });
    expect(outcome.status).toBe("success");
    expect(api.requests).toHaveLength(2);
  });

  it("429 that persists ends RATE_LIMITED with the wait carried", async () => {
    const t = tool();
    const body = JSON.stringify({ type: "error", error: { type: "rate_limit_error", message: "slow down" } });
    api.script.push({ status: 429, headers: { "retry-after": "7" }, body });
    const direct = await t.execute(args as never).catch((e: unknown) => e);
    expect(direct).toMatchObject({ code: "RATE_LIMITED", retryAfterMs: 7000 });
    expect((direct as Error).message).toMatch(/Retry after 7 s/);
  });

  it("5xx is UNAVAILABLE (and retried)", async () => {
    for (let i = 0; i < 3; i++)
      api.script.push({ status: 529, body: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }) });
    const outcome = await runner().run({ name: "anthropic_usage", args });
    expect(outcome.error?.code).toBe("UNAVAILABLE");
    expect(outcome.content).toMatch(/HTTP 529.*overloaded_error/);
    expect(api.requests).toHaveLength(3);
  });

  it("a request that never answers times out", async () => {
    api.script.push({ hang: true });
    const r = runner(tool(), false);
    const outcome = await r.run({ name: "anthropic_usage", args });
    expect(outcome.error?.code).toBe("TIMEOUT");
    expect(outcome.content).toMatch(/did not answer within 1.5 s/);
  });

  it("a body that is not JSON is reported, not parsed into nonsense", async () => {
    api.script.push({ status: 200, body: "<html>gateway</html>" });
    const outcome = await runner().run({ name: "anthropic_usage", args });
    expect(outcome.status).toBe("error");
    expect(outcome.content).toMatch(/unexpected response: the body is not JSON/);
  });

  it("JSON of the wrong shape is reported", async () => {
    api.script.push({ status: 200, body: JSON.stringify({ data: [{ starting_at: "x" }], has_more: false }) });
    const outcome = await runner().run({ name: "anthropic_usage", args });
    expect(outcome.status).toBe("error");
    expect(outcome.content).toMatch(/time bucket lacks/);
  });

  it("an unreachable server is a NETWORK_ERROR", async () => {
    const t = group({ ANTHROPIC_ADMIN_API_KEY: ADMIN_KEY }, { anthropic: { baseUrl: "http://127.0.0.1:1" } })[0]!;
    const r = runner(t, false);
    const outcome = await r.run({ name: "anthropic_usage", args });
    expect(outcome.error?.code).toBe("NETWORK_ERROR");
    expect(outcome.content).toMatch(/Could not reach the Anthropic Admin API/);
  });
});

function registryOf(t: AnyTool): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(t);
  return registry;
}
