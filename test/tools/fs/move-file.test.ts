import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { moveFileTool } from "../../../src/tools/fs/move-file.js";
import { approveAll, makeRunner, makeSandbox, type Sandbox } from "./helpers.js";
import { failure } from "../../support/tools.js";
import { Workspace } from "../../../src/workspace/workspace.js";

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

const at = (...p: string[]) => path.join(sb.ws, ...p);
const move = (args: Record<string, unknown>) => moveFileTool.execute(args as never, sb.ctx);

describe("move_file", () => {
  it("renames a file and returns { from, to }", async () => {
    writeFileSync(at("a.txt"), "a");
    const r = await move({ from: "a.txt", to: "dir/b.txt" });
    expect(readFileSync(at("dir", "b.txt"), "utf8")).toBe("a");
    expect(existsSync(at("a.txt"))).toBe(false);
    expect(r.structured).toEqual({ from: "a.txt", to: "dir/b.txt" });
    expect(r.changedPaths).toEqual([
      { path: "a.txt", operation: "moved" },
      { path: "dir/b.txt", operation: "created" },
    ]);
  });

  it("refuses to overwrite unless overwrite is true", async () => {
    writeFileSync(at("a.txt"), "a");
    writeFileSync(at("b.txt"), "b");
    const err = await failure(move({ from: "a.txt", to: "b.txt" }));
    expect(err.message).toContain("overwrite: true");
    expect(readFileSync(at("b.txt"), "utf8")).toBe("b");
    const r = await move({ from: "a.txt", to: "b.txt", overwrite: true });
    expect(readFileSync(at("b.txt"), "utf8")).toBe("a");
    expect(r.content).toContain("replaced");
  });

  it("moves folders and symlinks (the link itself), never a folder into itself", async () => {
    mkdirSync(at("src", "inner"), { recursive: true });
    writeFileSync(at("src", "inner", "f"), "f");
    await move({ from: "src", to: "lib" });
    expect(readFileSync(at("lib", "inner", "f"), "utf8")).toBe("f");
    expect((await failure(move({ from: "lib", to: "lib/inner/again" }))).message).toContain("into itself");
    writeFileSync(at("t.txt"), "t");
    symlinkSync("t.txt", at("l.txt"));
    await move({ from: "l.txt", to: "m.txt" });
    expect(readlinkSync(at("m.txt"))).toBe("t.txt");
    expect(existsSync(at("t.txt"))).toBe(true);
  });

  it("refuses a folder as the destination to replace, and the same path", async () => {
    writeFileSync(at("a.txt"), "a");
    mkdirSync(at("d"));
    expect((await failure(move({ from: "a.txt", to: "d", overwrite: true }))).message).toContain("folder");
    expect((await failure(move({ from: "a.txt", to: "./a.txt" }))).message).toContain("same path");
    expect((await failure(move({ from: "nope", to: "x" }))).code).toBe("FILE_NOT_FOUND");
  });

  it("takes the full new name: a file is not moved into a folder, whether it exists or is written as one", async () => {
    writeFileSync(at("a.txt"), "a");
    mkdirSync(at("d"));
    for (const to of ["d", "d/", "d/.", "new/", "new/."]) {
      for (const overwrite of [false, true]) {
        const err = await failure(move({ from: "a.txt", to, overwrite }));
        expect(err.code).toBe("INVALID_PATH");
        expect(err.message).toContain("names a folder");
      }
    }
    expect((await failure(move({ from: "a.txt", to: "d" }))).message).toContain('such as "d/a.txt"');
    expect(readFileSync(at("a.txt"), "utf8")).toBe("a");
    expect((await failure(move({ from: "a.txt", to: "new/.." }))).code).toBe("INVALID_PATH");
    expect(existsSync(at("new"))).toBe(false);
    // A folder's new name may be written as a folder.
    mkdirSync(at("src"));
    writeFileSync(at("src", "x.ts"), "x");
    await move({ from: "src", to: "lib/" });
    expect(readFileSync(at("lib", "x.ts"), "utf8")).toBe("x");
    // What moves is named outright, as for mv.
    expect((await failure(move({ from: "lib/.", to: "lib2" }))).message).toContain('ends in "."');
    expect((await failure(move({ from: "lib/x.ts/..", to: "lib2" }))).message).toContain('ends in ".."');
    // A folder is never replaced, and says so even without overwrite.
    mkdirSync(at("other"));
    expect((await failure(move({ from: "lib", to: "other" }))).message).toContain("never replaced");
  });

  it("asks only when overwriting (spec 003)", async () => {
    writeFileSync(at("a.txt"), "a");
    writeFileSync(at("b.txt"), "b");
    const approver = approveAll();
    const runner = makeRunner(sb.ws, { approval: "safe", approver });
    const plain = await runner.run({ name: "move_file", args: { from: "a.txt", to: "c.txt" } });
    expect(plain.approvedBy).toBe("auto");
    expect(approver.requests).toHaveLength(0);
    const over = await runner.run({ name: "move_file", args: { from: "c.txt", to: "b.txt", overwrite: true } });
    expect(over.status).toBe("success");
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]!.preview).toContain("replacing the existing b.txt");
    await runner.close();
  });

  // /dev/shm is another file system than the workspace's where it is a tmpfs: rename fails there (EXDEV).
  const otherFs = existsSync("/dev/shm") && statSync("/dev/shm").dev !== statSync(os.tmpdir()).dev;
  it.skipIf(!otherFs)("moves a folder to another file system by copying it, links kept, then removing the original", async () => {
    const shm = mkdtempSync("/dev/shm/tackle-move-");
    try {
      mkdirSync(at("lib", "sub"), { recursive: true });
      writeFileSync(at("lib", "sub", "a.txt"), "a");
      symlinkSync("sub/a.txt", at("lib", "link"));
      const ctx = { workspace: Workspace.open(sb.ws, [{ path: shm, writable: true }]) };
      await moveFileTool.execute({ from: "lib", to: path.join(shm, "lib") } as never, ctx);
      expect(existsSync(at("lib"))).toBe(false);
      expect(readFileSync(path.join(shm, "lib", "sub", "a.txt"), "utf8")).toBe("a");
      expect(readlinkSync(path.join(shm, "lib", "link"))).toBe("sub/a.txt");
    } finally {
      rmSync(shm, { recursive: true, force: true });
    }
  });

  it("moves or deletes a folder holding a secret only with a person's approval, in every mode", async () => {
    mkdirSync(at("conf", "deep"), { recursive: true });
    writeFileSync(at("conf", "deep", ".env"), "KEY=1\n");
    mkdirSync(at("plain"));
    writeFileSync(at("plain", "x.txt"), "x");
    const approver = approveAll();
    const runner = makeRunner(sb.ws, { approval: "all", approver });
    expect((await runner.run({ name: "move_file", args: { from: "plain", to: "plain2" } })).approvedBy).toBe("auto");
    expect(approver.requests).toHaveLength(0);
    const held = await runner.run({ name: "move_file", args: { from: "conf", to: "conf2" } });
    expect(held.status).toBe("success");
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]!.reason).toContain(
      "conf/deep/.env may hold secrets, and a folder holding one moves only with a person's approval",
    );
    // Deleted with its folder, a secret is the person's credential lost: asked too.
    const gone = await runner.run({ name: "delete_file", args: { path: "conf2", recursive: true } });
    expect(gone.status).toBe("success");
    expect(approver.requests).toHaveLength(2);
    expect(approver.requests[1]!.reason).toContain(
      "conf2/deep/.env may hold secrets, and a folder holding one is deleted only with a person's approval",
    );
    expect((await runner.run({ name: "delete_file", args: { path: "plain2", recursive: true } })).approvedBy).toBe("auto");
    await runner.close();
  });
});
