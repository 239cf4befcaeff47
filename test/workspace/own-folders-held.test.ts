import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { neverWritten } from "../../src/runtime/change-approval.js";
import { sandboxAvailable } from "../../src/sandbox/sandbox.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { runCli } from "../cli/run-cli.js";
import { tempDir } from "../support/tools.js";

// A workspace that holds tackle's own folders (here, a home folder whose cache, state and
// configuration folders are inside it) must not let a tool take one away with a folder above it
// and put another in its place: tackle would trust the new one as its own.
const sandboxed = (await sandboxAvailable()).available;
let ws: ReturnType<typeof tempDir>;
const env = () => ({
  XDG_CACHE_HOME: path.join(ws.dir, ".cache"),
  XDG_STATE_HOME: path.join(ws.dir, ".state"),
  XDG_CONFIG_HOME: path.join(ws.dir, ".config"),
});
beforeEach(() => {
  ws = tempDir();
  mkdirSync(path.join(ws.dir, ".cache", "tackle"), { recursive: true, mode: 0o700 });
  writeFileSync(path.join(ws.dir, ".cache", "tackle", "key"), "k".repeat(32), { mode: 0o600 });
  mkdirSync(path.join(ws.dir, "elsewhere", "tackle"), { recursive: true });
  for (const [name, value] of Object.entries(env())) vi.stubEnv(name, value);
});
afterEach(() => {
  vi.unstubAllEnvs();
  ws.cleanup();
});

describe("a folder holding tackle's own", { timeout: 180_000 }, () => {
  it("is never a write's target (move, replace, delete), while it is read, and the workspace root is written, as before", () => {
    const workspace = Workspace.open(ws.dir);
    for (const p of [".cache", ".state", ".config"]) {
      expect(() => workspace.resolveSync(p, { write: true })).toThrow(/holds tackle's own program, cache or state folder/);
    }
    expect(workspace.resolveSync(".cache").relative).toBe(".cache");
    expect(workspace.resolveSync(".", { write: true }).relative).toBe(".");
    expect(workspace.resolveSync("elsewhere", { write: true }).relative).toBe("elsewhere");
    // run_code's changes are judged the same way.
    expect(neverWritten(ws.dir, ".cache")).toBe("it holds tackle's own program, cache or state folder");
    expect(neverWritten(ws.dir, "elsewhere")).toBeUndefined();
  });

  it("cannot be moved away and replaced by tackle call move_file", async () => {
    const moved = await runCli(["call", "move_file", "from=.cache", "to=old", "--approval", "all", "--json", "--workspace", ws.dir], {
      env: env(),
    });
    expect(JSON.parse(moved.stdout)).toMatchObject({ status: "error", error: { code: "PERMISSION_DENIED" } });
    const over = await runCli(
      ["call", "move_file", "from=elsewhere", "to=.state", "overwrite=true", "--approval", "all", "--json", "--workspace", ws.dir],
      { env: env() },
    );
    expect(JSON.parse(over.stdout)).toMatchObject({ status: "error", error: { code: "PERMISSION_DENIED" } });
    expect(existsSync(path.join(ws.dir, ".cache", "tackle", "key"))).toBe(true);
    expect(existsSync(path.join(ws.dir, "elsewhere", "tackle"))).toBe(true);
  });

  it.skipIf(!sandboxed)("cannot be taken away by a shell command: the folder above it stays in place", async () => {
    // The folder's name built at run time, so the command's analysis cannot see it.
    const command = "command=d=.ca; d=${d}che; mv $d old && mkdir -p $d/tackle && echo x > $d/tackle/planted; echo done";
    const r = await runCli(["call", "shell", command, "--approval", "all", "--json", "--workspace", ws.dir], {
      env: env(),
      timeoutMs: 120_000,
    });
    const content = JSON.parse(r.stdout).content as string;
    expect(content).toMatch(/cannot move '\.cache' to 'old': Device or resource busy/);
    expect(existsSync(path.join(ws.dir, "old"))).toBe(false);
    expect(existsSync(path.join(ws.dir, ".cache", "tackle", "key"))).toBe(true);
    // A plain command leaves tackle's own folders where they are.
    const plain = await runCli(["call", "shell", "command=echo plain", "--approval", "all", "--json", "--workspace", ws.dir], {
      env: env(),
      timeoutMs: 120_000,
    });
    expect(JSON.parse(plain.stdout).content).toBe("plain");
    expect(existsSync(path.join(ws.dir, ".cache", "tackle"))).toBe(true);
  });

  it.skipIf(!sandboxed)("is hidden from a command in the strict sandbox (shell.sandbox: strict) too", async () => {
    writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify({ shell: { sandbox: "strict" } }));
    const command = "command=d=.ca; d=${d}che; cat $d/tackle/key; echo x > $d/tackle/planted; echo done";
    const r = await runCli(["call", "shell", command, "--approval", "all", "--json", "--workspace", ws.dir], {
      env: env(),
      timeoutMs: 120_000,
    });
    const content = JSON.parse(r.stdout).content as string;
    expect(content).toContain("done");
    expect(content).not.toContain("k".repeat(32));
    expect(readdirSync(path.join(ws.dir, ".cache", "tackle"))).not.toContain("planted");
  });
});
