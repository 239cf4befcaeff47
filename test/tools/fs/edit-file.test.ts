import { readFileSync, writeFileSync, chmodSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editFileTool, nearestCandidates } from "../../../src/tools/fs/edit-file.js";
import { approveAll, makeRunner, makeSandbox, type Sandbox } from "./helpers.js";
import { failure } from "../../support/tools.js";

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

const edit = (args: Record<string, unknown>) => editFileTool.execute(args as never, sb.ctx);
const at = (...p: string[]) => path.join(sb.ws, ...p);

const CODE = `function greet(name) {\n  const message = "hi " + name;\n  return message;\n}\n\nfunction part(x) {\n  return x;\n}\n`;

describe("edit_file", () => {
  it("replaces exactly one match and shows the result with line numbers", async () => {
    writeFileSync(at("a.js"), CODE);
    const r = await edit({ path: "a.js", old: '"hi "', new: '"hello "' });
    expect(readFileSync(at("a.js"), "utf8")).toBe(CODE.replace('"hi "', '"hello "'));
    expect(r.content).toContain("replaced 1 occurrence (at line 2)");
    expect(r.content).toContain('     2\t  const message = "hello " + name;');
    expect(r.structured).toMatchObject({ path: "a.js", replacements: 1, lines: [2] });
    expect(r.changedPaths).toEqual([{ path: "a.js", operation: "modified" }]);
    expect(r.displayContent).toContain('+  const message = "hello " + name;');
  });

  it("accepts old_string / new_string", async () => {
    writeFileSync(at("a.js"), CODE);
    await edit({ path: "a.js", old_string: "part(x)", new_string: "part(y)" });
    expect(readFileSync(at("a.js"), "utf8")).toContain("function part(y)");
  });

  it("fails with the number of matches and their lines when old matches several places", async () => {
    writeFileSync(at("a.js"), CODE);
    const err = await failure(edit({ path: "a.js", old: "return", new: "yield" }));
    expect(err.code).toBe("INVALID_ARGS");
    expect(err.message).toContain("old matches 2 places (lines 3, 7); add surrounding context");
    expect(err.message).toContain("replace_all");
    expect(readFileSync(at("a.js"), "utf8")).toBe(CODE);
  });

  it("replace_all replaces every match; $ patterns stay literal", async () => {
    writeFileSync(at("a.js"), CODE);
    const r = await edit({ path: "a.js", old: "return", new: "return $& $1", replace_all: true });
    expect(readFileSync(at("a.js"), "utf8").match(/return \$& \$1/g)).toHaveLength(2);
    expect(r.structured).toMatchObject({ replacements: 2, lines: [3, 7] });
  });

  it("expected_replacements must equal the number of matches", async () => {
    writeFileSync(at("a.js"), CODE);
    const err = await failure(edit({ path: "a.js", old: "return", new: "yield", expected_replacements: 3 }));
    expect(err.message).toContain("matches 2 places");
    expect(err.message).toContain("expected_replacements is 3");
    await edit({ path: "a.js", old: "return", new: "yield", expected_replacements: 2 });
    expect(readFileSync(at("a.js"), "utf8")).not.toContain("return");
  });

  it("points at a whitespace-only difference without applying it", async () => {
    writeFileSync(at("a.js"), CODE);
    const err = await failure(edit({ path: "a.js", old: 'const   message = "hi " +  name;\n    return message;', new: "x" }));
    expect(err.code).toBe("INVALID_ARGS");
    expect(err.message).toContain("if whitespace");
    expect(err.message).toContain("Lines 2–3");
    expect(err.message).toContain("Nothing was changed");
    expect(readFileSync(at("a.js"), "utf8")).toBe(CODE);
  });

  it("counts missing spaces as a whitespace-only difference too", async () => {
    writeFileSync(at("a.js"), CODE);
    const err = await failure(edit({ path: "a.js", old: 'message="hi "+name;', new: "x" }));
    expect(err.message).toContain("if whitespace");
    expect(err.message).toContain("Line 2:");
  });

  it("shows the most similar lines when nothing matches, and never applies them", async () => {
    writeFileSync(at("a.js"), CODE);
    const err = await failure(edit({ path: "a.js", old: 'const mesage = "hi" + nam;', new: "x" }));
    expect(err.message).toContain("most similar");
    expect(err.message).toContain('     2\t  const message = "hi " + name;');
    expect(readFileSync(at("a.js"), "utf8")).toBe(CODE);
    expect(nearestCandidates("abc\ndef\n", "zzzzzzzz qqqqq")).toContain("nothing similar");
  });

  it("keeps CRLF line endings, even when old and new use \\n", async () => {
    writeFileSync(at("w.txt"), "one\r\ntwo\r\nthree\r\n");
    await edit({ path: "w.txt", old: "one\ntwo", new: "uno\ndos\nmas" });
    expect(readFileSync(at("w.txt"), "utf8")).toBe("uno\r\ndos\r\nmas\r\nthree\r\n");
    await edit({ path: "w.txt", old: "three", new: "tres\ncuatro" });
    expect(readFileSync(at("w.txt"), "utf8")).toBe("uno\r\ndos\r\nmas\r\ntres\r\ncuatro\r\n");
  });

  it("matches CRLF old text against an LF file", async () => {
    writeFileSync(at("u.txt"), "a\nb\n");
    await edit({ path: "u.txt", old: "a\r\nb", new: "A\r\nB" });
    expect(readFileSync(at("u.txt"), "utf8")).toBe("A\nB\n");
  });

  it("keeps a byte-order mark and the file's mode", async () => {
    writeFileSync(at("bom.txt"), "\uFEFFhello world\n");
    chmodSync(at("bom.txt"), 0o640);
    await edit({ path: "bom.txt", old: "world", new: "there" });
    const bytes = readFileSync(at("bom.txt"));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString("utf8")).toBe("\uFEFFhello there\n");
    expect(statSync(at("bom.txt")).mode & 0o777).toBe(0o640);
  });

  it("refuses empty old, identical old/new, binary files and missing files", async () => {
    writeFileSync(at("a.txt"), "text");
    expect((await failure(edit({ path: "a.txt", old: "", new: "x" }))).message).toContain("write_file");
    expect((await failure(edit({ path: "a.txt", old: "text", new: "text" }))).message).toContain("identical");
    writeFileSync(at("b.bin"), Buffer.from([0, 1, 2, 3]));
    expect((await failure(edit({ path: "b.bin", old: "\u0001", new: "x" }))).message).toContain("UTF-8");
    expect((await failure(edit({ path: "nope.txt", old: "a", new: "b" }))).code).toBe("FILE_NOT_FOUND");
  });

  it("validates its arguments: one of old/old_string and new/new_string, consistent if both", async () => {
    const v = editFileTool.validate({ path: "a", new: "x" });
    expect(v.valid).toBe(false);
    expect(v.error).toContain("old is required (a string)");
    const clash = editFileTool.validate({ path: "a", old: "x", old_string: "y", new: "z" });
    expect(clash.valid).toBe(false);
    expect(clash.error).toContain('old: given twice with different values (as "old" and as "old_string"); send only "old"');
    expect(editFileTool.validate({ path: "a", old_string: "x", new_string: "z" })).toMatchObject({
      valid: true,
      value: { old: "x", new: "z", replace_all: false },
    });
    expect(editFileTool.validate({ path: "a", old: "x", old_string: "x", new: "z" })).toMatchObject({
      valid: true,
      value: { old: "x", new: "z", replace_all: false },
    });
    // The other spelling is accepted but not published: the model sees one name.
    const schema = editFileTool.inputSchema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties).sort()).toEqual(["expected_replacements", "new", "old", "path", "replace_all"]);
    expect(schema.required.sort()).toEqual(["new", "old", "path"]);
  });

  it("always asks in safe mode, with a unified diff; the alias edit works", async () => {
    writeFileSync(at("a.js"), CODE);
    const approver = approveAll();
    const runner = makeRunner(sb.ws, { approval: "safe", approver });
    const reg = runner.registry;
    expect(reg.get("edit")).toBeTruthy();
    const out = await runner.run({ name: "edit", args: { path: "a.js", old_string: "part(x)", new_string: "part(z)" } });
    expect(out.status).toBe("success");
    expect(out.approvedBy).toBe("user");
    const preview = approver.requests[0]!.preview!;
    expect(preview).toContain("--- a/a.js");
    expect(preview).toContain("-function part(x) {");
    expect(preview).toContain("+function part(z) {");
    const rejected = await makeRunner(sb.ws, { approval: "safe", approver: undefined }).run({
      name: "edit_file",
      args: { path: "a.js", old: "part(z)", new: "part(q)" },
    });
    expect(rejected.status).toBe("rejected");
    expect(readFileSync(at("a.js"), "utf8")).toContain("part(z)");
    await runner.close();
  });

  it("an edit approved with modified arguments validates again", async () => {
    writeFileSync(at("a.js"), CODE);
    const runner = makeRunner(sb.ws, {
      approval: "safe",
      approver: async (req) => ({ approved: true, modifiedArgs: { ...req.args, new: "part(edited)" } }),
    });
    const out = await runner.run({ name: "edit_file", args: { path: "a.js", old: "part(x)", new: "part(y)" } });
    expect(out.status).toBe("success");
    expect(readFileSync(at("a.js"), "utf8")).toContain("function part(edited)");
    await runner.close();
  });
});
