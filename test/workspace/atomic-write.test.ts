import { chmodSync, linkSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { atomicWriteFile } from "../../src/workspace/atomic-write.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "tackle-atomic-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("atomicWriteFile", () => {
  it("creates, replaces, keeps the mode and leaves no temporary file", async () => {
    const p = path.join(dir, "a.txt");
    expect(await atomicWriteFile(p, "héllo")).toBe(6);
    chmodSync(p, 0o600);
    await atomicWriteFile(p, Buffer.from([1, 2, 3]));
    expect([...readFileSync(p)]).toEqual([1, 2, 3]);
    expect(statSync(p).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["a.txt"]);
  });

  it("cuts a hard link instead of writing through it", async () => {
    const a = path.join(dir, "orig.txt");
    const b = path.join(dir, "link.txt");
    writeFileSync(a, "original");
    linkSync(a, b);
    await atomicWriteFile(b, "new");
    expect(readFileSync(a, "utf8")).toBe("original");
    expect(readFileSync(b, "utf8")).toBe("new");
  });

  it("cleans up its temporary file when the write fails", async () => {
    await expect(atomicWriteFile(path.join(dir, "missing-dir", "x.txt"), "x")).rejects.toThrow();
    expect(readdirSync(dir).some((n) => n.startsWith(".tackle-tmp-"))).toBe(false);
  });
});
