import { existsSync, writeFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDirectoryTool } from "../../../src/tools/fs/create-directory.js";
import { approveAll, makeRunner, makeSandbox, type Sandbox } from "./helpers.js";
import { failure } from "../../support/tools.js";

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

const at = (...p: string[]) => path.join(sb.ws, ...p);
const mkdir = (args: Record<string, unknown>) => createDirectoryTool.execute(args as never, sb.ctx);

describe("create_directory", () => {
  it("creates nested folders and is fine when the folder exists", async () => {
    const r = await mkdir({ path: "a/b/c" });
    expect(statSync(at("a", "b", "c")).isDirectory()).toBe(true);
    expect(r.structured).toEqual({ path: "a/b/c", created: true });
    expect((await mkdir({ path: "a/b/c" })).content).toContain("already exists");
    writeFileSync(at("file"), "x");
    expect((await failure(mkdir({ path: "file" }))).code).toBe("INVALID_PATH");
  });

  it("requires approval (spec 002) and refuses .git/hooks", async () => {
    const approver = approveAll();
    const runner = makeRunner(sb.ws, { approval: "safe", approver });
    expect((await runner.run({ name: "create_directory", args: { path: "x" } })).status).toBe("success");
    expect(approver.requests).toHaveLength(1);
    const hooks = await runner.run({ name: "create_directory", args: { path: ".git/hooks" } });
    expect(hooks.error?.code).toBe("PERMISSION_DENIED");
    expect(existsSync(at(".git", "hooks"))).toBe(false);
    await runner.close();
  });
});
