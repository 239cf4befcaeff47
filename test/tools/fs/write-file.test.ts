import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileTool } from "../../../src/tools/fs/write-file.js";
import { appendFileTool } from "../../../src/tools/fs/append-file.js";
import { approveAll, makeRunner, makeSandbox, type Sandbox } from "./helpers.js";
import { failure } from "../../support/tools.js";

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

const write = (args: Record<string, unknown>) => writeFileTool.execute(args as never, sb.ctx);
const append = (args: Record<string, unknown>) => appendFileTool.execute(args as never, sb.ctx);
const at = (...p: string[]) => path.join(sb.ws, ...p);

describe("write_file", () => {
  it("creates a file, says the bytes written, and returns { path, size }", async () => {
    const r = await write({ path: "notes/today.md", content: "héllo\n" });
    expect(readFileSync(at("notes", "today.md"), "utf8")).toBe("héllo\n");
    expect(r.content).toContain("Wrote 7 bytes");
    expect(r.content).toContain("new file");
    expect(r.structured).toMatchObject({ path: "notes/today.md", size: 7, created: true });
    expect(r.changedPaths).toEqual([{ path: "notes/today.md", operation: "created" }]);
  });

  it("replaces an existing file and keeps its mode", async () => {
    writeFileSync(at("run.sh"), "old");
    chmodSync(at("run.sh"), 0o750);
    const r = await write({ path: "run.sh", content: "#!/bin/sh\necho new\n" });
    expect(readFileSync(at("run.sh"), "utf8")).toBe("#!/bin/sh\necho new\n");
    expect(statSync(at("run.sh")).mode & 0o777).toBe(0o750);
    expect(r.changedPaths).toEqual([{ path: "run.sh", operation: "modified" }]);
    expect(r.content).toContain("replaced its previous 3 bytes");
  });

  it("writes base64 bytes and rejects malformed base64", async () => {
    const bytes = Buffer.from([0, 255, 1, 2, 3]);
    await write({ path: "b.bin", content: bytes.toString("base64"), encoding: "base64" });
    expect(readFileSync(at("b.bin"))).toEqual(bytes);
    expect((await failure(write({ path: "c.bin", content: "***", encoding: "base64" }))).code).toBe("INVALID_ARGS");
  });

  it("creates parent folders by default; createDirs / createDirectories false refuses", async () => {
    await write({ path: "a/b/c.txt", content: "x" });
    expect(existsSync(at("a", "b", "c.txt"))).toBe(true);
    const e1 = await failure(write({ path: "x/y.txt", content: "x", createDirs: false }));
    expect(e1.code).toBe("FILE_NOT_FOUND");
    expect(e1.message).toContain("createDirs");
    expect((await failure(write({ path: "x/y.txt", content: "x", createDirectories: false }))).code).toBe("FILE_NOT_FOUND");
    await write({ path: "x/y.txt", content: "x", createDirectories: true });
    expect(existsSync(at("x", "y.txt"))).toBe(true);
  });

  it("refuses a folder, a read-only file and the workspace root", async () => {
    mkdirSync(at("dir"));
    expect((await failure(write({ path: "dir", content: "x" }))).code).toBe("INVALID_PATH");
    writeFileSync(at("ro.txt"), "keep");
    chmodSync(at("ro.txt"), 0o444);
    expect((await failure(write({ path: "ro.txt", content: "x" }))).code).toBe("PERMISSION_DENIED");
    expect((await failure(append({ path: "ro.txt", content: "x" }))).code).toBe("PERMISSION_DENIED");
    expect(readFileSync(at("ro.txt"), "utf8")).toBe("keep");
    expect((await failure(write({ path: ".", content: "x" }))).code).toBe("INVALID_PATH");
    expect((await failure(write({ path: "newdir/", content: "x" }))).message).toContain("names a folder");
    expect((await failure(write({ path: "newdir/.", content: "x" }))).message).toContain("names a folder");
    expect((await failure(write({ path: "newdir/..", content: "x" }))).message).toContain("names a folder");
  });

  it("writes through a symlink that stays inside to its real target", async () => {
    writeFileSync(at("real.txt"), "old");
    symlinkSync("real.txt", at("alias.txt"));
    const r = await write({ path: "alias.txt", content: "new" });
    expect(readFileSync(at("real.txt"), "utf8")).toBe("new");
    expect(r.structured).toMatchObject({ path: "real.txt" });
  });

  it("a dangling symlink whose target is inside creates that target", async () => {
    symlinkSync("made/by/link.txt", at("pending"));
    const r = await write({ path: "pending", content: "through" });
    expect(readFileSync(at("made", "by", "link.txt"), "utf8")).toBe("through");
    expect(r.structured).toMatchObject({ path: "made/by/link.txt", created: true });
  });

  it("replaces a hard link instead of writing through it", async () => {
    const outsideFile = path.join(sb.outside, "secret.txt");
    writeFileSync(outsideFile, "outside content");
    linkSync(outsideFile, at("linked.txt"));
    const r = await write({ path: "linked.txt", content: "inside content" });
    expect(r.content).toContain("hard link");
    expect(readFileSync(outsideFile, "utf8")).toBe("outside content");
    expect(readFileSync(at("linked.txt"), "utf8")).toBe("inside content");
  });

  it("leaves no temporary files behind", async () => {
    await write({ path: "t.txt", content: "a" });
    await write({ path: "t.txt", content: "b" });
    expect(readdirSync(sb.ws)).toEqual(["t.txt"]);
  });

  it("asks only when overwriting (spec 003), with a unified diff preview", async () => {
    const approver = approveAll();
    const runner = makeRunner(sb.ws, { approval: "safe", approver });
    const created = await runner.run({ name: "write_file", args: { path: "new.txt", content: "one\ntwo\n" } });
    expect(created.status).toBe("success");
    expect(created.approvedBy).toBe("auto");
    expect(approver.requests).toHaveLength(0);
    const replaced = await runner.run({ name: "write_file", args: { path: "new.txt", content: "one\nTWO\n" } });
    expect(replaced.status).toBe("success");
    expect(replaced.approvedBy).toBe("user");
    expect(approver.requests).toHaveLength(1);
    const preview = approver.requests[0]!.preview!;
    expect(preview).toContain("--- a/new.txt");
    expect(preview).toContain("+++ b/new.txt");
    expect(preview).toContain("-two");
    expect(preview).toContain("+TWO");
    expect(replaced.metadata?.changedPaths).toEqual([{ path: "new.txt", operation: "modified" }]);
    await runner.close();
  });

  it("is rejected when overwriting with nobody to approve, and the file is unchanged", async () => {
    writeFileSync(at("keep.txt"), "original");
    const runner = makeRunner(sb.ws, { approval: "safe", approver: undefined });
    const out = await runner.run({ name: "write_file", args: { path: "keep.txt", content: "changed" } });
    expect(out.status).toBe("rejected");
    expect(readFileSync(at("keep.txt"), "utf8")).toBe("original");
    await runner.close();
  });

  it("previews a new file as a diff from /dev/null in mode none", async () => {
    const approver = approveAll();
    const runner = makeRunner(sb.ws, { approval: "none", approver });
    await runner.run({ name: "write_file", args: { path: "fresh.txt", content: "hello\n" } });
    expect(approver.requests[0]!.preview).toContain("--- /dev/null");
    expect(approver.requests[0]!.preview).toContain("+hello");
    await runner.close();
  });

  it("emits file.changed events through the runner", async () => {
    const runner = makeRunner(sb.ws, { approval: "all" });
    const events: string[] = [];
    runner.on("file.changed", (e) => events.push(`${(e as { operation: string }).operation}:${(e as { path: string }).path}`));
    await runner.run({ name: "write_file", args: { path: "e.txt", content: "x" } });
    expect(events).toEqual(["created:e.txt"]);
    await runner.close();
  });
});

describe("append_file", () => {
  it("appends to an existing file and says how much", async () => {
    writeFileSync(at("log.txt"), "one\n");
    const r = await append({ path: "log.txt", content: "two\n" });
    expect(readFileSync(at("log.txt"), "utf8")).toBe("one\ntwo\n");
    expect(r.content).toContain("Appended 4 bytes");
    expect(r.content).toContain("now 8 bytes");
    expect(r.changedPaths).toEqual([{ path: "log.txt", operation: "modified" }]);
  });

  it("requires the file to exist and says to use write_file (spec 000)", async () => {
    const err = await failure(append({ path: "missing.txt", content: "x" }));
    expect(err.code).toBe("FILE_NOT_FOUND");
    expect(err.message).toContain("write_file");
    expect(existsSync(at("missing.txt"))).toBe(false);
  });

  it("notes when the file did not end with a newline", async () => {
    writeFileSync(at("n.txt"), "no newline");
    expect((await append({ path: "n.txt", content: "more" })).content).toContain("did not end with a newline");
  });

  it("does not append through a hard link to a file outside", async () => {
    const outsideFile = path.join(sb.outside, "shared.txt");
    writeFileSync(outsideFile, "base\n");
    linkSync(outsideFile, at("shared.txt"));
    await append({ path: "shared.txt", content: "added\n" });
    expect(readFileSync(outsideFile, "utf8")).toBe("base\n");
    expect(readFileSync(at("shared.txt"), "utf8")).toBe("base\nadded\n");
  });

  it("refuses folders and asks for approval in safe mode with a preview", async () => {
    mkdirSync(at("d"));
    expect((await failure(append({ path: "d", content: "x" }))).code).toBe("INVALID_PATH");
    writeFileSync(at("a.txt"), "a\n");
    const approver = approveAll();
    const runner = makeRunner(sb.ws, { approval: "safe", approver });
    const out = await runner.run({ name: "append_file", args: { path: "a.txt", content: "b\n" } });
    expect(out.status).toBe("success");
    expect(approver.requests[0]!.preview).toContain("+b");
    await runner.close();
  });
});
