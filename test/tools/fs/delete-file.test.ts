import { existsSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deleteFileTool } from "../../../src/tools/fs/delete-file.js";
import { approveAll, makeRunner, makeSandbox, type Sandbox } from "./helpers.js";
import { failure } from "../../support/tools.js";

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

const at = (...p: string[]) => path.join(sb.ws, ...p);
const del = (args: Record<string, unknown>) => deleteFileTool.execute(args as never, sb.ctx);

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

  it("refuses a path that ends in . or .., as rm does: what goes is named outright", async () => {
    mkdirSync(at("s", "l"), { recursive: true });
    writeFileSync(at("s", "l", "f.txt"), "f");
    writeFileSync(at("a.txt"), "a");
    for (const p of ["s/l/..", "s/l/../", "s/.", "a.txt/.", "s/l/f.txt/.."]) {
      const err = await failure(del({ path: p, recursive: true }));
      expect(err.code).toBe("INVALID_PATH");
      expect(err.message).toMatch(/ends in "\.\.?"; name the file or folder itself/);
    }
    expect((await failure(del({ path: "s/l/..", recursive: true }))).message).toContain('("s")');
    expect(existsSync(at("s", "l", "f.txt")) && existsSync(at("a.txt"))).toBe(true);
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
