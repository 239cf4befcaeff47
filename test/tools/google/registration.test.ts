import { describe, expect, it } from "vitest";
import { googleTools } from "../../../src/tools/google/index.js";
import { silentLogger } from "../../../src/core/logger.js";
import type { AnyTool } from "../../../src/core/tool.js";

const ALL = ["gmail_search", "gmail_read", "gmail_send", "calendar_list_events", "calendar_create_event", "calendar_get_event"];

function group(env: Record<string, string | undefined>, services?: Record<string, unknown>): AnyTool[] {
  return googleTools({
    config: services ? { services: services as never } : {},
    env,
    workspace: "/tmp",
    logger: silentLogger,
  }) as AnyTool[];
}

describe("google group registration", () => {
  it("registers the six tools only when both the client id and the secret are set", () => {
    expect(group({})).toEqual([]);
    expect(group({ GOOGLE_CLIENT_ID: "id" })).toEqual([]);
    expect(group({ GOOGLE_CLIENT_SECRET: "secret" })).toEqual([]);
    expect(group({ GOOGLE_CLIENT_ID: " ", GOOGLE_CLIENT_SECRET: "secret" })).toEqual([]);
    expect(group({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "secret" }).map((t) => t.name)).toEqual(ALL);
  });

  it("reads are read tools; sending mail and creating events are network calls that always ask", async () => {
    const tools = new Map(group({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "secret" }).map((t) => [t.name, t]));
    for (const name of ["gmail_search", "gmail_read", "calendar_list_events", "calendar_get_event"])
      expect(tools.get(name)!.effect).toBe("read");
    for (const name of ["gmail_send", "calendar_create_event"]) {
      const t = tools.get(name)!;
      expect(t.effect).toBe("network");
      expect(await t.needsApproval!({} as never, {} as never)).toBe(true);
    }
  });

  it("every tool has a description from its .txt file and a JSON Schema", () => {
    for (const t of group({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "secret" })) {
      expect(t.description.length).toBeGreaterThan(80);
      expect(t.inputSchema["type"]).toBe("object");
    }
  });

  it("refuses an invalid services.google section with the field named", () => {
    expect(() => group({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "secret" }, { google: { tokenUrl: "not a url" } })).toThrow(
      /services\.google.*tokenUrl/,
    );
  });
});

describe("in the assembled registry", () => {
  it("the assistant toolset lists the Google and Anthropic tools exactly when their credentials are present", async () => {
    const { createRegistry } = await import("../../../src/tools/builtin.js");
    const { anthropicTools } = await import("../../../src/tools/anthropic/index.js");
    const names = async (env: Record<string, string>) =>
      (
        await createRegistry(
          { config: {}, workspace: "/tmp", env },
          { groups: [googleTools, anthropicTools], toolset: "assistant", logger: silentLogger },
        )
      ).names();
    expect(await names({})).toEqual([]);
    expect(await names({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "s" })).toEqual(ALL);
    expect(await names({ ANTHROPIC_ADMIN_API_KEY: "k" })).toEqual(["anthropic_usage"]);
    expect((await names({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "s", ANTHROPIC_ADMIN_API_KEY: "k" })).length).toBe(7);
  });
});

describe("arguments", () => {
  it("unknown fields are refused, not silently dropped", async () => {
    const { ToolRegistry } = await import("../../../src/registry/registry.js");
    const { ToolRunner } = await import("../../../src/runtime/runner.js");
    const registry = new ToolRegistry();
    registry.registerAll(group({ GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "secret" }));
    const runner = new ToolRunner({ registry, workspace: "/tmp", cache: false });
    try {
      const outcome = await runner.run({ name: "calendar_list_events", args: { startDate: "2026-11-01" } });
      expect(outcome.error?.code).toBe("INVALID_ARGS");
      expect(outcome.content).toMatch(/startDate: unknown parameter/);
    } finally {
      await runner.close();
    }
  });
});
