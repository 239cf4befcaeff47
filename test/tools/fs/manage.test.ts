import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync, statSync, chmodSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deleteFileTool } from "../../../src/tools/fs/delete-file.js";
import { moveFileTool } from "../../../src/tools/fs/move-file.js";
import { copyFileTool } from "../../../src/tools/fs/copy-file.js";
import { createDirectoryTool } from "../../../src/tools/fs/create-directory.js";
import { ToolError } from "../../../src/core/errors.js";
import { approveAll, makeRunner, makeSandbox, type Sandbox } from "./helpers.js";

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

const at = (...p: string[]) => path.join(sb.ws, ...p);
const del = (args: Record<string, unknown>) => deleteFileTool.execute(args as never, sb.ctx);
const move = (args: Record<string, unknown>) => moveFileTool.execute(args as never, sb.ctx);
const copy = (args: Record<string, unknown>) => copyFileTool.execute(args as never, sb.ctx);
const mkdir = (args: Record<string, unknown>) => createDirectoryTool.execute(args as never, sb.ctx);

async function failure(p: Promise<unknown>): Promise<ToolError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error("expected a ToolError");
}

describe("delete_file", () => {
  it("deletes a file and says what was deleted: { deleted }", async () => {
    writeFileSync(at("a.txt"), "abc");
    const r = await del({ path: "a.txt" });
    expect(existsSync(at("a.txt"))).toBe(false);
    expect(r.content).toContain('Deleted the file "a.txt" (3 bytes)');
    expect(r.structured).toEqual({ deleted: ["a.txt"] });
    expect(r.changedPaths).toEqual([{ path: "a.txt", operation: "deleted" }]);
  });

  it("deletes an empty folder; a full one only with recursive, listing what went", async () => {
    mkdirSync(at("empty"));
    await del({ path: "empty" });
    expect(existsSync(at("empty"))).toBe(false);
    mkdirSync(at("full", "sub"), { recursive: true });
    writeFileSync(at("full", "sub", "x.txt"), "x");
    writeFileSync(at("full", "y.txt"), "y");
    const err = await failure(del({ path: "full" }));
    expect(err.message).toContain("recursive: true");
    expect(existsSync(at("full"))).toBe(true);
    const r = await del({ path: "full", recursive: true });
    expect(existsSync(at("full"))).toBe(false);
    expect((r.structured as { deleted: string[] }).deleted.sort()).toEqual(["full", "full/sub", "full/sub/x.txt", "full/y.txt"]);
    expect(r.content).toContain("full/sub/x.txt");
  });

  it("deletes a symlink itself, never its target", async () => {
    writeFileSync(at("target.txt"), "keep me");
    symlinkSync("target.txt", at("link.txt"));
    const r = await del({ path: "link.txt" });
    expect(existsSync(at("target.txt"))).toBe(true);
    expect(() => lstatSync(at("link.txt"))).toThrow();
    expect(r.content).toContain("symbolic link");
    mkdirSync(at("realdir"));
    writeFileSync(at("realdir", "f"), "f");
    symlinkSync("realdir", at("dirlink"));
    await del({ path: "dirlink" });
    expect(existsSync(at("realdir", "f"))).toBe(true);
  });

  it("refuses the workspace root, missing paths, and folders holding protected files", async () => {
    for (const p of [".", "./", "sub/..", sb.ws]) {
      mkdirSync(at("sub"), { recursive: true });
      expect((await failure(del({ path: p, recursive: true }))).code).toBe("INVALID_PATH");
    }
    expect(existsSync(sb.ws)).toBe(true);
    expect((await failure(del({ path: "ghost.txt" }))).code).toBe("FILE_NOT_FOUND");
    mkdirSync(at(".git", "hooks"), { recursive: true });
    writeFileSync(at(".git", "hooks", "pre-commit"), "#!/bin/sh");
    const err = await failure(del({ path: ".git", recursive: true }));
    expect(err.code).toBe("PERMISSION_DENIED");
    expect(existsSync(at(".git", "hooks", "pre-commit"))).toBe(true);
  });

  it("always asks, even in safe mode, with a list of what would go; rejected means nothing is deleted", async () => {
    mkdirSync(at("d"));
    writeFileSync(at("d", "one.txt"), "1");
    const approver = approveAll();
    const runner = makeRunner(sb.ws, { approval: "safe", approver });
    const out = await runner.run({ name: "delete_file", args: { path: "d", recursive: true } });
    expect(out.status).toBe("success");
    expect(out.approvedBy).toBe("user");
    expect(approver.requests[0]!.effect).toBe("destructive");
    expect(approver.requests[0]!.preview).toContain("d/one.txt");
    expect(out.structured).toEqual({ deleted: ["d", "d/one.txt"] });
    writeFileSync(at("keep.txt"), "k");
    const no = makeRunner(sb.ws, { approval: "safe", approver: undefined });
    expect((await no.run({ name: "delete_file", args: { path: "keep.txt" } })).status).toBe("rejected");
    expect(existsSync(at("keep.txt"))).toBe(true);
    await runner.close();
    await no.close();
  });
});

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
});

describe("copy_file", () => {
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
