import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { TokenStore } from "../../../src/tools/google/token-store.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "tackle-tokens-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("TokenStore", () => {
  it("writes the file 0600 in a 0700 folder, atomically, with a .gitignore", () => {
    const store = new TokenStore(path.join(root, ".gmail-tokens"));
    const old = process.umask(0o000);
    try {
      store.save({ access_token: "a", refresh_token: "r", expiry_date: 1 });
    } finally {
      process.umask(old);
    }
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(statSync(store.dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(store.dir).sort()).toEqual([".gitignore", "token.json"]);
    expect(store.load()).toEqual({ access_token: "a", refresh_token: "r", expiry_date: 1 });
  });

  it("tightens a folder that already exists with loose permissions", () => {
    const dir = path.join(root, ".calendar-tokens");
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    new TokenStore(dir).save({ access_token: "a" });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it("keeps the refresh token when a refresh response has none", () => {
    const store = new TokenStore(path.join(root, "t"));
    store.save({ access_token: "a", refresh_token: "r" });
    store.save({ access_token: "b", expiry_date: 5 });
    expect(store.load()).toEqual({ access_token: "b", refresh_token: "r", expiry_date: 5 });
  });

  it("treats missing, corrupt and empty files as no tokens", () => {
    const store = new TokenStore(path.join(root, "t"));
    expect(store.load()).toBeUndefined();
    mkdirSync(store.dir);
    writeFileSync(store.file, "{not json");
    expect(store.load()).toBeUndefined();
    writeFileSync(store.file, JSON.stringify({ token_type: "Bearer" }));
    expect(store.load()).toBeUndefined();
    store.clear();
    expect(store.load()).toBeUndefined();
  });
});
