import { mkdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sensitiveEntries, workspaceScan } from "../../src/workspace/sensitive-entries.js";
import { tempDir } from "../support/tools.js";

let ws: ReturnType<typeof tempDir>;
beforeEach(() => {
  ws = tempDir();
});
afterEach(() => ws.cleanup());

const write = (rel: string, text = "x\n") => {
  mkdirSync(path.dirname(path.join(ws.dir, rel)), { recursive: true });
  writeFileSync(path.join(ws.dir, rel), text);
};
const found = async () => (await sensitiveEntries(ws.dir)).map((p) => path.relative(ws.dir, p));

describe("the secrets a sandbox hides", () => {
  it("are found topmost, in any case, never through a link, never in node_modules or .git", async () => {
    write(".env");
    write("app/config/.ENV.local");
    write(".aws/credentials");
    write("deep/a/b/c/id_rsa");
    write("node_modules/pkg/.env");
    write(".git/secrets.txt");
    write("src/main.ts");
    symlinkSync(path.join(ws.dir, ".env"), path.join(ws.dir, "link.env"));
    expect(await found()).toEqual([".aws", ".env", "app/config/.ENV.local", "deep/a/b/c/id_rsa"]);
  });

  it("follow the tree as it changes between searches: added deep down, renamed, removed", async () => {
    for (let i = 0; i < 50; i++) write(`pkg${i}/src/file.ts`);
    expect(await found()).toEqual([]);
    write("pkg7/src/.env");
    expect(await found()).toEqual(["pkg7/src/.env"]);
    renameSync(path.join(ws.dir, "pkg7"), path.join(ws.dir, "moved"));
    expect(await found()).toEqual(["moved/src/.env"]);
    mkdirSync(path.join(ws.dir, "pkg3/keys"));
    writeFileSync(path.join(ws.dir, "pkg3/keys/server.pem"), "k");
    expect(await found()).toEqual(["moved/src/.env", "pkg3/keys/server.pem"]);
    rmSync(path.join(ws.dir, "moved"), { recursive: true });
    expect(await found()).toEqual(["pkg3/keys/server.pem"]);
    // A folder replaced by a file of the same name, and back.
    rmSync(path.join(ws.dir, "pkg3"), { recursive: true });
    writeFileSync(path.join(ws.dir, "pkg3"), "now a file");
    expect(await found()).toEqual([]);
  });

  it("are not lost when a command sets a folder's time back after moving a secret (utimes cannot forge the change time)", async () => {
    for (let i = 0; i < 5; i++) write(`pkg${i}/src/file.ts`);
    write("pkg2/.env");
    const old = new Date(Date.now() - 60_000);
    for (const dir of [ws.dir, ...Array.from({ length: 5 }, (_, i) => path.join(ws.dir, `pkg${i}`))]) utimesSync(dir, old, old);
    expect(await found()).toEqual(["pkg2/.env"]);
    const before = statSync(ws.dir);
    renameSync(path.join(ws.dir, "pkg2"), path.join(ws.dir, "elsewhere"));
    utimesSync(ws.dir, before.atime, before.mtime);
    expect(statSync(ws.dir).mtimeMs).toBe(before.mtimeMs);
    expect(await found()).toEqual(["elsewhere/.env"]);
  });

  it("include dependency folders' secrets when asked", async () => {
    write("node_modules/.package-lock.json", "{}");
    write("node_modules/pkg/config/.env");
    write(".env");
    const withPackages = async () => (await sensitiveEntries(ws.dir, { packages: true })).map((p) => path.relative(ws.dir, p));
    expect(await withPackages()).toEqual([".env", "node_modules/pkg/config/.env"]);
    // A folder inside a package renamed with no install (no stamp moves): its secret is found at its new path.
    renameSync(path.join(ws.dir, "node_modules/pkg/config"), path.join(ws.dir, "node_modules/pkg/settings"));
    expect(await withPackages()).toEqual([".env", "node_modules/pkg/settings/.env"]);
  });
});

describe("tackle's configuration anywhere in the workspace", () => {
  it("is found below the top in any folder, links included, never in node_modules; a change after is seen", async () => {
    write("tackle.config.json", "{}");
    write("config.json", "{}");
    write("apps/web/tackle.config.json", "{}");
    write("apps/api/config.json", "{}");
    write("tools/.tackle/tools/t.mjs");
    write("node_modules/pkg/tackle.config.json", "{}");
    write("elsewhere.json", "{}");
    mkdirSync(path.join(ws.dir, "linked"));
    symlinkSync("../elsewhere.json", path.join(ws.dir, "linked", "tackle.config.json"));
    const anywhere = async () => (await workspaceScan(ws.dir)).config.map((p) => path.relative(ws.dir, p)).sort();
    expect(await anywhere()).toEqual(["apps/api/config.json", "apps/web/tackle.config.json", "linked/tackle.config.json", "tools/.tackle"]);
    write("apps/web/deeper/tackle.config.json", "{}");
    expect(await anywhere()).toContain("apps/web/deeper/tackle.config.json");
    write("apps/web/Makefile");
    write("apps/web/.husky/pre-commit");
    const code = (await workspaceScan(ws.dir)).code.map((p) => path.relative(ws.dir, p));
    expect(code).toEqual(expect.arrayContaining(["apps/web/Makefile", "apps/web/.husky"]));
    expect(code).not.toContain("config.json");
  });
});
