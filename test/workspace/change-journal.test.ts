import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../src/registry/registry.js";
import { ToolRunner } from "../../src/runtime/runner.js";
import { FILE_TOOLS } from "../../src/tools/fs/index.js";
import { tackleStateDir } from "../../src/workspace/own-folders.js";
import { ChangeJournal, type ChangeJournalOptions } from "../../src/workspace/change-journal.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { boundarySandbox, failure, type BoundarySandbox } from "../support/tools.js";
import { runCli } from "../cli/run-cli.js";

let sb: BoundarySandbox;
let journal: ChangeJournal;
let runner: ToolRunner;

function open(options: ChangeJournalOptions = {}): void {
  journal = new ChangeJournal(Workspace.open(sb.ws), options);
  const registry = new ToolRegistry();
  registry.registerAll(FILE_TOOLS);
  runner = new ToolRunner({ registry, workspace: sb.ws, approval: "all", cache: false, journal });
}

beforeEach(() => {
  sb = boundarySandbox("tackle-journal-");
  open();
});
afterEach(async () => {
  await runner.close();
  sb.cleanup();
});

const at = (...p: string[]) => path.join(sb.ws, ...p);
const read = (rel: string) => readFileSync(at(rel), "utf8");
async function call(name: string, args: Record<string, unknown>) {
  const out = await runner.run({ name, args });
  expect(out.status, out.content).toBe("success");
  return out;
}

/** Every file under the workspace with its content and mode. */
function tree(dir = sb.ws, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) Object.assign(out, tree(dir, r));
    else out[r] = `${(statSync(path.join(dir, r)).mode & 0o777).toString(8)} ${readFileSync(path.join(dir, r), "utf8")}`;
  }
  return out;
}

describe("the change journal", () => {
  it("keeps each call's changes and undoes them one by one back to the start, modes included", async () => {
    sb.write({ "a.txt": "alpha\n", "dir/x.txt": "x\n", "dir/sub/y.txt": "y\n", "old.txt": "old\n" });
    chmodSync(at("a.txt"), 0o640);
    const start = tree();
    const states = [tree()];
    await call("write_file", { path: "new.txt", content: "new\n" });
    states.push(tree());
    await call("edit_file", { path: "a.txt", old: "alpha", new: "ALPHA" });
    states.push(tree());
    await call("apply_patch", {
      patch:
        "*** Begin Patch\n*** Update File: old.txt\n*** Move to: moved/old.txt\n-old\n+OLD\n*** Add File: added.txt\n+added\n*** End Patch",
    });
    states.push(tree());
    await call("delete_file", { path: "dir", recursive: true });
    states.push(tree());
    await call("move_file", { from: "new.txt", to: "deep/er/new.txt" });
    states.push(tree());
    expect(journal.list().map((i) => i.kind === "change" && i.tool)).toEqual([
      "move_file",
      "delete_file",
      "apply_patch",
      "edit_file",
      "write_file",
    ]);
    for (let i = states.length - 2; i >= 0; i--) {
      await journal.undo();
      expect(tree(), `after undoing to state ${i}`).toEqual(states[i]);
    }
    expect(tree()).toEqual(start);
    expect(statSync(at("a.txt")).mode & 0o777).toBe(0o640);
    expect((await failure(journal.undo())).message).toBe("There is no change left to undo.");
    expect(journal.list().every((i) => i.kind !== "change" || i.undone)).toBe(true);
  });

  it("undoes several calls at once, or everything since a named checkpoint", async () => {
    sb.write({ "a.txt": "1\n" });
    await call("read_file", { path: "a.txt" });
    await call("write_file", { path: "a.txt", content: "2\n" });
    journal.checkpoint("before-three");
    await call("write_file", { path: "a.txt", content: "3\n" });
    await call("write_file", { path: "b.txt", content: "b\n" });
    await call("write_file", { path: "a.txt", content: "4\n" });
    const dry = await journal.undo({ to: "before-three", dryRun: true });
    expect(dry.undone).toHaveLength(3);
    expect(read("a.txt")).toBe("4\n");
    await journal.undo({ to: "before-three" });
    expect(read("a.txt")).toBe("2\n");
    expect(existsSync(at("b.txt"))).toBe(false);
    expect((await failure(journal.undo({ to: "nope" }))).message).toMatch(/^There is no checkpoint "nope"\. Checkpoints: before-three\.$/);
    await journal.undo({ count: 5 });
    expect(read("a.txt")).toBe("1\n");
  });

  it("refuses, changing nothing, when a file changed since the call, and a file too large to keep", async () => {
    sb.write({ "a.txt": "1\n", "b.txt": "b\n" });
    await call("apply_patch", { patch: "*** Begin Patch\n*** Update File: a.txt\n-1\n+2\n*** Update File: b.txt\n-b\n+B\n*** End Patch" });
    writeFileSync(at("b.txt"), "changed by a person\n");
    const err = await failure(journal.undo());
    expect(err.code).toBe("STALE_FILE");
    expect(err.message).toMatch(/^Cannot undo: "b.txt" changed since that call .*Nothing was changed/);
    expect(read("a.txt")).toBe("2\n");
    expect(read("b.txt")).toBe("changed by a person\n");

    await runner.close();
    open({ maxFileBytes: 10 });
    await call("write_file", { path: "big.txt", content: "more than ten bytes\n" });
    await call("write_file", { path: "big.txt", content: "x".repeat(50) });
    expect(journal.list()[0]).toMatchObject({ kind: "change", undoable: false });
    expect((await failure(journal.undo())).message).toMatch(/"big.txt" was not kept \(larger than 10 bytes, or a link\)/);
  });

  it("stays within its bounds, dropping the oldest calls and the contents only they kept", async () => {
    await runner.close();
    open({ maxEntries: 3 });
    // The bounds are checked at the first call and every 8th after it.
    for (let i = 0; i < 9; i++) await call("write_file", { path: `f${i}.txt`, content: `content ${i}\n` });
    const kept = journal.list();
    expect(kept.map((i) => i.kind === "change" && i.files[0])).toEqual(["f8.txt", "f7.txt", "f6.txt"]);
    const blobs = readdirSync(path.join(tackleStateDir(), "checkpoints"), { recursive: true }).filter((f) => String(f).includes("blobs/"));
    // Each kept call keeps one content (the file it created); the other journals' blobs are other workspaces'.
    expect(blobs.length).toBeGreaterThanOrEqual(3);
    await journal.undo({ count: 10 });
    expect(readdirSync(sb.ws).sort()).toEqual(["f0.txt", "f1.txt", "f2.txt", "f3.txt", "f4.txt", "f5.txt"]);
  });

  it("a call that changes more than it keeps is listed as not undoable, and no undo goes past it", async () => {
    sb.write({ "a.txt": "a\n", "big/1.txt": "1\n", "big/2.txt": "2\n", "big/3.txt": "3\n", "big/4.txt": "4\n" });
    await runner.close();
    open({ maxFiles: 2 });
    await call("write_file", { path: "new.txt", content: "n\n" });
    await call("delete_file", { path: "big", recursive: true });
    expect(journal.list()[0]).toMatchObject({ kind: "change", tool: "delete_file", undoable: false, files: [] });
    const err = await failure(journal.undo({ count: 2 }));
    expect(err.message).toMatch(/^Cannot undo: delete_file at .* changed more than the journal keeps .*Nothing was changed\.$/);
    expect(existsSync(at("new.txt"))).toBe(true);
    // The bound on bytes holds while a call is read, not only afterwards.
    await runner.close();
    open({ maxBytes: 4 });
    sb.write({ "c/1.txt": "12345\n" });
    await call("delete_file", { path: "c", recursive: true });
    expect(journal.list()[0]).toMatchObject({ tool: "delete_file", undoable: false });
  });

  it("never reaches outside the workspace: symlinks are not followed, and an undo does not write through a link put in since", async () => {
    writeFileSync(path.join(sb.outside, "secret.txt"), "outside\n");
    sb.write({ "a.txt": "a\n" });
    await call("read_file", { path: "a.txt" });
    await call("write_file", { path: "a.txt", content: "A\n" });
    // Someone replaces a.txt with a link to a file outside holding what the call wrote.
    writeFileSync(path.join(sb.outside, "same.txt"), "A\n");
    const { rmSync } = await import("node:fs");
    rmSync(at("a.txt"));
    symlinkSync(path.join(sb.outside, "same.txt"), at("a.txt"));
    expect((await failure(journal.undo())).code).toBe("STALE_FILE");
    expect(readFileSync(path.join(sb.outside, "same.txt"), "utf8")).toBe("A\n");
    mkdirSync(at("linked"));
    symlinkSync(sb.outside, at("linked/out"));
    await call("delete_file", { path: "linked", recursive: true });
    expect(readFileSync(path.join(sb.outside, "secret.txt"), "utf8")).toBe("outside\n");
  });
});

describe("tackle undo, checkpoints and checkpoint", () => {
  it("rewind what tackle call changed, from the command line", async () => {
    sb.write({ "a.txt": "one\n" });
    const cli = (...args: string[]) => runCli([...args, "--workspace", sb.ws]);
    expect((await cli("checkpoint", "start")).code).toBe(0);
    expect((await cli("call", "read_file", "path=a.txt")).code).toBe(0);
    expect((await cli("call", "write_file", "path=a.txt", "content=two", "--approval", "all")).code).toBe(0);
    expect((await cli("call", "write_file", "path=b.txt", "content=bee", "--approval", "all")).code).toBe(0);
    const listed = await cli("checkpoints");
    expect(listed.stdout).toMatch(/write_file {2}b\.txt\n.*write_file {2}a\.txt\n.*— checkpoint start/s);
    const dry = await cli("undo", "--dry-run");
    expect(dry.stdout).toMatch(/^Would undo write_file \(.*\):\n {2}removed +b\.txt\n$/);
    expect(existsSync(at("b.txt"))).toBe(true);
    expect((await cli("undo", "--to", "start")).code).toBe(0);
    expect(read("a.txt")).toBe("one\n");
    expect(existsSync(at("b.txt"))).toBe(false);
    const nothing = await cli("undo");
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toBe("tackle: There is no change left to undo.\n");
    const bad = await cli("undo", "zero");
    expect(bad.stderr).toMatch(/the count is a whole number of calls/);
    // A name a model chose reaches the person's terminal shown, never obeyed.
    expect(
      (
        await cli(
          "call",
          "write_file",
          "--args",
          JSON.stringify({ path: "evil\u001b]0;pwned\u0007.txt", content: "x" }),
          "--approval",
          "all",
        )
      ).code,
    ).toBe(0);
    const listedEvil = await cli("checkpoints");
    expect(listedEvil.stdout).toContain("write_file");
    expect(listedEvil.stdout).not.toMatch(/\u001b|\u0007/);
    expect((await cli("undo")).stdout).not.toMatch(/\u001b|\u0007/);
  }, 120_000);
});
