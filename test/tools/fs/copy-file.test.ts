import { chmodSync, closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyFileTool, MAX_COPY_BYTES } from "../../../src/tools/fs/copy-file.js";
import { approveAll, makeRunner, makeSandbox, type Sandbox } from "./helpers.js";
import { failure } from "../../support/tools.js";

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

const at = (...p: string[]) => path.join(sb.ws, ...p);
const copy = (args: Record<string, unknown>) => copyFileTool.execute(args as never, sb.ctx);

describe("copy_file", () => {
  it("refuses a file or folder larger than it copies in one call (a 50 GB sparse file), writing nothing", async () => {
    const huge = openSync(at("huge.bin"), "w");
    ftruncateSync(huge, 50 * 1024 ** 3);
    closeSync(huge);
    const error = await failure(copy({ source: "huge.bin", dest: "copy.bin" }));
    expect(error.message).toMatch(/"huge\.bin" is 53,687,091,200 bytes .*; copy_file copies at most 1,073,741,824 bytes/);
    expect(existsSync(at("copy.bin"))).toBe(false);

    mkdirSync(at("big"));
    const inside = openSync(at("big", "a.bin"), "w");
    ftruncateSync(inside, MAX_COPY_BYTES + 1);
    closeSync(inside);
    const folder = await failure(copy({ source: "big", dest: "big2", recursive: true }));
    expect(folder.message).toMatch(/"big" holds more than/);
    expect(existsSync(at("big2"))).toBe(false);
  });

  it("copies a file (source, dest), keeping its mode", async () => {
    writeFileSync(at("a.sh"), "echo hi");
    chmodSync(at("a.sh"), 0o755);
    const r = await copy({ source: "a.sh", dest: "bin/b.sh" });
    expect(readFileSync(at("bin", "b.sh"), "utf8")).toBe("echo hi");
    expect(statSync(at("bin", "b.sh")).mode & 0o777).toBe(0o755);
    expect(r.structured).toMatchObject({ source: "a.sh", dest: "bin/b.sh", size: 7 });
    expect(r.changedPaths).toEqual([{ path: "bin/b.sh", operation: "created" }]);
  });

  it("needs overwrite to replace and recursive for folders", async () => {
    writeFileSync(at("a.txt"), "a");
    writeFileSync(at("b.txt"), "b");
    expect((await failure(copy({ source: "a.txt", dest: "b.txt" }))).message).toContain("overwrite: true");
    await copy({ source: "a.txt", dest: "b.txt", overwrite: true });
    expect(readFileSync(at("b.txt"), "utf8")).toBe("a");
    mkdirSync(at("d", "e"), { recursive: true });
    writeFileSync(at("d", "e", "f.txt"), "f");
    expect((await failure(copy({ source: "d", dest: "d2" }))).message).toContain("recursive: true");
    await copy({ source: "d", dest: "d2", recursive: true });
    expect(readFileSync(at("d2", "e", "f.txt"), "utf8")).toBe("f");
    expect((await failure(copy({ source: "d", dest: "d/inside", recursive: true }))).message).toContain("into itself");
    expect((await failure(copy({ source: "missing", dest: "x" }))).code).toBe("FILE_NOT_FOUND");
  });

  it("takes the full name of the copy: a file is not copied into a folder, whether it exists or is written as one", async () => {
    writeFileSync(at("a.txt"), "a");
    mkdirSync(at("d"));
    writeFileSync(at("d", "keep.txt"), "k");
    for (const dest of ["d", "d/", "d/.", "new/", "new/."]) {
      for (const overwrite of [false, true]) {
        const err = await failure(copy({ source: "a.txt", dest, overwrite }));
        expect(err.code).toBe("INVALID_PATH");
        expect(err.message).toContain("names a folder");
      }
    }
    expect((await failure(copy({ source: "a.txt", dest: "d/" }))).message).toContain('such as "d/a.txt"');
    expect(readFileSync(at("d", "keep.txt"), "utf8")).toBe("k");
    expect((await failure(copy({ source: "a.txt", dest: "new/.." }))).code).toBe("INVALID_PATH");
    expect(existsSync(at("new"))).toBe(false);
    // A folder's copy may be named as a folder.
    await copy({ source: "d", dest: "d2/", recursive: true });
    expect(readFileSync(at("d2", "keep.txt"), "utf8")).toBe("k");
  });

  it("requires approval (spec 002)", async () => {
    writeFileSync(at("a.txt"), "a");
    const approver = approveAll();
    const runner = makeRunner(sb.ws, { approval: "safe", approver });
    const out = await runner.run({ name: "copy_file", args: { source: "a.txt", dest: "b.txt" } });
    expect(out.status).toBe("success");
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]!.preview).toContain("a.txt");
    await runner.close();
  });
});
