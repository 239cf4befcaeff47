import os from "node:os";
import { afterEach } from "vitest";
import { startFakeServer, type FakeServer, type Handler } from "../../fixtures/web/fake-server.js";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolRunner, type ToolRunnerOptions } from "../../../src/runtime/runner.js";
import type { AnyTool } from "../../../src/core/tool.js";
import type { ApprovalRequest, Approver } from "../../../src/runtime/approver.js";
import { silentLogger } from "../../../src/core/logger.js";
import type { GroupContext } from "../../../src/tools/group.js";

/** A group context as createRegistry builds it, from a config object and an environment. */
export function groupContext(config: Record<string, unknown> = {}, env: Record<string, string | undefined> = {}): GroupContext {
  return { config, env, workspace: os.tmpdir(), logger: silentLogger };
}

/** A runner over the given tools; records what it asked a person, answering with `answer`. */
export function runnerFor(tools: AnyTool[], options: Partial<ToolRunnerOptions> & { answer?: boolean } = {}) {
  const registry = new ToolRegistry();
  registry.registerAll(tools);
  const asked: ApprovalRequest[] = [];
  const approver: Approver = async (request) => {
    asked.push(request);
    return options.answer ? { approved: true } : { approved: false, message: "no" };
  };
  const runner = new ToolRunner({
    registry,
    approver,
    workspace: os.tmpdir(),
    cache: false,
    retry: { retries: 2, baseDelayMs: 10, maxDelayMs: 50 },
    ...options,
  });
  return { runner, asked };
}

/** Fake servers for one test file, each closed after the test that started it. */
export function fakeServers(): (handler: Handler) => Promise<FakeServer> {
  const servers: FakeServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (handler) => {
    const server = await startFakeServer(handler);
    servers.push(server);
    return server;
  };
}
