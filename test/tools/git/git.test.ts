import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { shellTools } from "../../../src/tools/shell/index.js";
import { silentLogger } from "../../../src/core/logger.js";
import { useRepo } from "./helpers.js";

describe("the git tools against a hostile repository or workspace", () => {
  const t = useRepo();

  it("refuses option injection and paths outside the workspace", async () => {
    const injected = await t.runner.run({ name: "git_diff", args: { ref: "--output=/tmp/pwned" } });
    expect(injected.error?.code).toBe("INVALID_ARGS");
    expect(existsSync("/tmp/pwned")).toBe(false);
    expect((await t.runner.run({ name: "git_branch", args: { name: "-D", create: true } })).error?.code).toBe("INVALID_ARGS");
    expect((await t.runner.run({ name: "git_log", args: { path: "../.." } })).error?.code).toBe("INVALID_PATH");
    expect((await t.runner.run({ name: "git_push", args: { remote: "--upload-pack=touch /tmp/x" } })).error?.code).toBe("INVALID_ARGS");
  });

  it("never runs a program the repository's config names for fsmonitor", async () => {
    const marker = path.join(t.base, "fsmonitor-ran");
    writeFileSync(path.join(t.base, "hook.sh"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    t.git("config", "core.fsmonitor", path.join(t.base, "hook.sh"));
    const out = await t.runner.run({ name: "git_status", args: {} });
    expect(out.status).toBe("success");
    const shellRegistry = new ToolRegistry();
    shellRegistry.registerAll(await shellTools({ config: {}, env: {}, workspace: t.repo, logger: silentLogger }));
    const shell = new ToolRunner({ registry: shellRegistry, workspace: t.repo, approval: "all" });
    expect((await shell.run({ name: "shell", args: { command: "git status --short" } })).status).toBe("success");
    await shell.close();
    expect(existsSync(marker)).toBe(false);
  });

  it("says when the workspace is not a repository", async () => {
    const plain = path.join(t.base, "plain");
    mkdirSync(plain);
    const r = new ToolRunner({ registry: t.runner.registry, workspace: plain });
    const out = await r.run({ name: "git_status", args: {} });
    expect(out.error?.code).toBe("EXECUTION_ERROR");
    expect(out.content).toMatch(/not a git repository/);
    await r.close();
  });
});
