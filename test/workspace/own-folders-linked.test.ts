import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { completeContext } from "../../src/core/context.js";
import { neverWritten } from "../../src/runtime/change-approval.js";
import { sandboxAvailable } from "../../src/sandbox/sandbox.js";
import { createShellTools } from "../../src/tools/shell/index.js";
import { shellSettingsFrom } from "../../src/tools/shell/settings.js";
import { inTackleFolder } from "../../src/workspace/own-folders.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { runCli } from "../cli/run-cli.js";
import { tempDir } from "../support/tools.js";

// tackle's folders not made yet, under a folder that is a link to elsewhere in the workspace (a
// dotfiles set-up's `~/.cache -> dotfiles/cache`): a tool must not make them first, writing where
// making them would put them, or tackle later trusts what it finds there (a key of the model's).
const sandboxed = (await sandboxAvailable()).available;
let ws: ReturnType<typeof tempDir>;
const env = () => ({
  XDG_CACHE_HOME: path.join(ws.dir, ".cache"),
  XDG_STATE_HOME: path.join(ws.dir, ".local", "state"),
  XDG_CONFIG_HOME: path.join(ws.dir, "no", "such", "config"),
  TACKLE_CODE_CACHE: "0",
});
beforeEach(() => {
  ws = tempDir();
  mkdirSync(path.join(ws.dir, "dotfiles", "cache"), { recursive: true });
  mkdirSync(path.join(ws.dir, "dotfiles", "local"), { recursive: true });
  symlinkSync(path.join(ws.dir, "dotfiles", "cache"), path.join(ws.dir, ".cache"));
  symlinkSync(path.join(ws.dir, "dotfiles", "local"), path.join(ws.dir, ".local"));
  for (const [name, value] of Object.entries(env())) vi.stubEnv(name, value);
});
afterEach(() => {
  vi.unstubAllEnvs();
  ws.cleanup();
});

describe("tackle's own folders not made yet, below a link", () => {
  it("count where making them would put them", () => {
    expect(inTackleFolder(path.join(ws.dir, "dotfiles", "cache", "tackle", "key"))).toBe(true);
    expect(inTackleFolder(path.join(ws.dir, "dotfiles", "local", "state", "tackle", "desks"))).toBe(true);
    expect(inTackleFolder(path.join(ws.dir, "no", "such", "config", "tackle", "x"))).toBe(true);
    expect(inTackleFolder(path.join(ws.dir, "dotfiles", "cache", "other"))).toBe(false);
    const workspace = Workspace.open(ws.dir);
    for (const p of [".cache/tackle/key", "dotfiles/cache/tackle/key", ".local/state/tackle/servers/x.token"]) {
      expect(() => workspace.resolveSync(p, { write: true })).toThrow(/tackle's own program, cache or state folder/);
    }
    expect(() => workspace.resolveSync("dotfiles/cache", { write: true })).toThrow(/holds tackle's own/);
    expect(workspace.resolveSync("dotfiles/cache/other", { write: true }).relative).toBe("dotfiles/cache/other");
    // run_code's changes are judged by the names they make: re-pointing the link is one.
    expect(neverWritten(ws.dir, ".cache")).toBe("it holds tackle's own program, cache or state folder");
    expect(neverWritten(ws.dir, "dotfiles")).toBe("it holds tackle's own program, cache or state folder");
  });

  it("cannot be planted by tackle call write_file", async () => {
    for (const p of [".cache/tackle/key", "dotfiles/cache/tackle/key"]) {
      const planted = await runCli(
        ["call", "write_file", `path=${p}`, "content=planted", "--approval", "all", "--json", "--workspace", ws.dir],
        {
          env: env(),
        },
      );
      expect(JSON.parse(planted.stdout)).toMatchObject({ status: "error", error: { code: "PERMISSION_DENIED" } });
    }
    expect(existsSync(path.join(ws.dir, "dotfiles", "cache", "tackle"))).toBe(false);
  });

  it.skipIf(!sandboxed)("are worked out afresh after a command re-pointed the link above them", { timeout: 120_000 }, async () => {
    const workspace = Workspace.open(ws.dir);
    expect(() => workspace.resolveSync(".cache/tackle/key", { write: true })).toThrow(/tackle's own/);
    const shell = createShellTools(shellSettingsFrom({})).tools.find((t) => t.name === "shell")!;
    // The link's name built at run time, so the command's analysis cannot see it.
    const ran = await shell.execute(
      { command: "d=.ca; d=${d}che; mkdir evil && ln -sfn evil $d && echo done" },
      completeContext({ workspace }),
    );
    expect(ran.content).toContain("done");
    // tackle's cache folder would now be made in evil/: a tool may not make it first.
    expect(() => workspace.resolveSync("evil/tackle/key", { write: true })).toThrow(/tackle's own program, cache or state folder/);
    expect(workspace.resolveSync("dotfiles/cache/tackle/key", { write: true }).relative).toBe("dotfiles/cache/tackle/key");
  });
});
