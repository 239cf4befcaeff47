import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Workspace } from "../../src/workspace/workspace.js";
import { isSensitivePath } from "../../src/workspace/sensitive.js";
import { isProtectedPath } from "../../src/workspace/protected.js";
import { tempDir } from "../support/tools.js";

let base: ReturnType<typeof tempDir>;
let root: string;
let ws: Workspace;

beforeEach(() => {
  base = tempDir();
  root = path.join(base.dir, "ws");
  mkdirSync(path.join(root, "src"), { recursive: true });
  mkdirSync(path.join(base.dir, "ws-evil"));
  mkdirSync(path.join(base.dir, "outside"));
  writeFileSync(path.join(base.dir, "outside", "secret.txt"), "s");
  writeFileSync(path.join(root, "src", "a.ts"), "a");
  ws = Workspace.open(root);
});
afterEach(() => base.cleanup());

const refuse = async (p: string, write = false) => {
  await expect(ws.resolve(p, { write })).rejects.toMatchObject({ code: "INVALID_PATH" });
};

describe("Workspace.resolve", () => {
  it("resolves relative and absolute paths inside", async () => {
    expect(await ws.resolve("src/a.ts")).toMatchObject({ relative: "src/a.ts", absolute: path.join(root, "src/a.ts") });
    expect((await ws.resolve(path.join(root, "src"))).relative).toBe("src");
    expect((await ws.resolve(".")).relative).toBe(".");
    expect((await ws.resolve("src/../src/new/file.txt")).relative).toBe("src/new/file.txt");
  });

  it("refuses traversal, outside absolute paths, sibling prefixes, null bytes and ~", async () => {
    await refuse("../outside/secret.txt");
    await refuse("src/../../outside/secret.txt");
    await refuse(path.join(base.dir, "outside", "secret.txt"));
    await refuse(path.join(base.dir, "ws-evil", "x"));
    await refuse("../ws-evil/x");
    await refuse("src/a.ts\0.png");
    await refuse("~/x");
    await refuse("/etc/passwd");
    await refuse("");
  });

  it("takes a file URI for the path it names, under the same rules", async () => {
    const uri = (p: string) => pathToFileURL(p).href;
    expect((await ws.resolve(uri(path.join(root, "src", "a.ts")))).relative).toBe("src/a.ts");
    expect((await ws.resolve(`file://${root}/src/has%20space.ts`)).relative).toBe("src/has space.ts");
    await refuse(uri(path.join(base.dir, "outside", "secret.txt")));
    await refuse(`file://${root}/src/%2e%2e/%2e%2e/outside/secret.txt`);
    await refuse(`file://${root}/..%2Foutside/secret.txt`);
    await refuse("file:///etc/passwd");
    await refuse(`file://example.com${root}/src/a.ts`);
    await expect(ws.resolve(`file://example.com${root}/src/a.ts`)).rejects.toThrow(/not a file URI of this machine/);
  });

  it("follows symlinks and refuses those that lead out", async () => {
    symlinkSync(path.join(base.dir, "outside"), path.join(root, "linkdir"));
    symlinkSync(path.join(base.dir, "outside", "secret.txt"), path.join(root, "linkfile"));
    symlinkSync(path.join(base.dir, "outside", "nothing-yet.txt"), path.join(root, "dangling"));
    symlinkSync(path.join(base.dir, "ws-evil"), path.join(root, "evil"));
    symlinkSync(path.join(root, "src"), path.join(root, "inner"));
    await refuse("linkdir/secret.txt");
    await refuse("linkfile");
    await refuse("dangling", true);
    await refuse("evil/new.txt", true);
    expect((await ws.resolve("inner/a.ts")).relative).toBe("src/a.ts");
  });

  it("refuses symlink loops clearly", async () => {
    symlinkSync(path.join(root, "loop2"), path.join(root, "loop1"));
    symlinkSync(path.join(root, "loop1"), path.join(root, "loop2"));
    await expect(ws.resolve("loop1/x")).rejects.toMatchObject({ code: "INVALID_PATH", message: expect.stringMatching(/symbolic links/) });
  });

  it("treats a workspace opened through a symlink as its real path", async () => {
    symlinkSync(root, path.join(base.dir, "alias"));
    const viaLink = Workspace.open(path.join(base.dir, "alias"));
    expect(viaLink.root).toBe(root);
    expect((await viaLink.resolve(path.join(base.dir, "alias", "src", "a.ts"))).relative).toBe("src/a.ts");
  });

  it("reports a hard-linked file by its path inside (writes must replace, not write through)", async () => {
    linkSync(path.join(base.dir, "outside", "secret.txt"), path.join(root, "hard"));
    expect((await ws.resolve("hard")).relative).toBe("hard");
  });

  it("refuses writes to protected files", async () => {
    for (const p of ["tackle.config.json", "config.json", ".git/config", ".git/hooks/pre-commit", ".tackle/x"]) {
      await expect(ws.resolve(p, { write: true }), p).rejects.toMatchObject({ code: "PERMISSION_DENIED" });
      await expect(ws.resolve(p)).resolves.toBeDefined();
    }
  });

  it("allows extra roots only as configured", async () => {
    const extra = Workspace.open(root, [{ path: path.join(base.dir, "outside"), writable: false }]);
    expect((await extra.resolve(path.join(base.dir, "outside", "secret.txt"))).root).toBe(path.join(base.dir, "outside"));
    await expect(extra.resolve(path.join(base.dir, "outside", "secret.txt"), { write: true })).rejects.toMatchObject({
      code: "INVALID_PATH",
    });
  });
});

describe("sensitive and protected paths", () => {
  it.each([
    ".env",
    "a/.env",
    ".env.local",
    "id_rsa",
    ".ssh/config",
    "x/.aws/credentials",
    "credentials.json",
    "server.pem",
    ".npmrc",
    ".gmail-tokens/t.json",
  ])("%s is sensitive", (p) => {
    expect(isSensitivePath(p)).toBe(true);
  });
  it.each(["src/env.ts", ".env.example", "README.md", "environment.md", "keys.ts"])("%s is not", (p) => {
    expect(isSensitivePath(p)).toBe(false);
  });
  it("protects tackle's config and git's hooks and config", () => {
    expect(isProtectedPath(".git/hooks/post-checkout")).toBe(true);
    expect(isProtectedPath(".git/HEAD")).toBe(false);
    expect(isProtectedPath("src/config.json")).toBe(false);
  });
});
