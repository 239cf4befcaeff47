import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { multiEditTool } from "../../../src/tools/fs/multi-edit.js";
import { approveAll, makeRunner, makeSandbox, type Sandbox } from "./helpers.js";
import { failure } from "../../support/tools.js";

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

const multi = (args: Record<string, unknown>) => multiEditTool.execute(args as never, sb.ctx);
const at = (...p: string[]) => path.join(sb.ws, ...p);
const CODE = `function greet(name) {\n  const message = "hi " + name;\n  return message;\n}\n\nfunction part(x) {\n  return x;\n}\n`;

describe("multi_edit", () => {
  it("applies every edit in order, each to what the ones before it left, and shows one diff", async () => {
    writeFileSync(at("a.js"), CODE);
    const r = await multi({
      path: "a.js",
      edits: [
        { old: "greet(name)", new: "welcome(name)" },
        { old: "welcome(name) {", new: "welcome(name, loud) {" },
        { old: "return x;", new: "return x * 2;" },
        { old: "name", new: "who", replace_all: true },
      ],
    });
    const after = readFileSync(at("a.js"), "utf8");
    expect(after).toBe(
      `function welcome(who, loud) {\n  const message = "hi " + who;\n  return message;\n}\n\nfunction part(x) {\n  return x * 2;\n}\n`,
    );
    expect(r.content).toMatch(/applied 4 edits \(5 replacements\), changing lines 1–7/);
    expect(r.displayContent).toContain("+function welcome(who, loud) {");
    expect(r.displayContent).toContain("+  return x * 2;");
    expect(r.changedPaths).toEqual([{ path: "a.js", operation: "modified" }]);
  });

  it("takes each edit in edit_file's spelling too (old_string, new_string)", async () => {
    writeFileSync(at("a.js"), CODE);
    await multi({
      path: "a.js",
      edits: [
        { old_string: "return x;", new_string: "return x + 1;" },
        { old: "greet", new: "hello" },
      ],
    });
    expect(readFileSync(at("a.js"), "utf8")).toContain("return x + 1;");
    expect(readFileSync(at("a.js"), "utf8")).toContain("function hello(name)");
  });

  it("writes nothing when any edit fails, and says which one and why", async () => {
    writeFileSync(at("a.js"), CODE);
    const err = await failure(
      multi({
        path: "a.js",
        edits: [
          { old: "greet", new: "welcome" },
          { old: "return", new: "yield" },
          { old: "x", new: "y" },
        ],
      }),
    );
    expect(err.code).toBe("INVALID_ARGS");
    expect(err.message).toMatch(/^Edit 2 of 3 .*old matches 2 places \(lines 3, 7\).*No edit was applied\.$/s);
    expect(readFileSync(at("a.js"), "utf8")).toBe(CODE);
    const missing = await failure(multi({ path: "a.js", edits: [{ old: "greeet(name)", new: "x" }] }));
    expect(missing.message).toMatch(/^Edit 1 of 1: The text given as old was not found/);
    expect(readFileSync(at("a.js"), "utf8")).toBe(CODE);
  });

  it("keeps CRLF line endings and a byte-order mark", async () => {
    writeFileSync(at("w.txt"), "\uFEFFone\r\ntwo\r\nthree\r\n");
    await multi({
      path: "w.txt",
      edits: [
        { old: "one\ntwo", new: "uno\ndos" },
        { old: "three", new: "tres" },
      ],
    });
    expect(readFileSync(at("w.txt"), "utf8")).toBe("\uFEFFuno\r\ndos\r\ntres\r\n");
  });

  it("refuses paths outside the workspace, through a symlink, a sibling prefix, binary files and too many edits", async () => {
    writeFileSync(path.join(sb.outside, "x.txt"), "secret\n");
    writeFileSync(path.join(sb.evil, "x.txt"), "sibling\n");
    symlinkSync(path.join(sb.outside, "x.txt"), at("link.txt"));
    for (const p of ["../outside/x.txt", path.join(sb.outside, "x.txt"), "link.txt", "../ws-evil/x.txt"]) {
      const err = await failure(multi({ path: p, edits: [{ old: "s", new: "t" }] }));
      expect(["INVALID_PATH", "PERMISSION_DENIED"]).toContain(err.code);
    }
    expect(readFileSync(path.join(sb.outside, "x.txt"), "utf8")).toBe("secret\n");
    expect(readFileSync(path.join(sb.evil, "x.txt"), "utf8")).toBe("sibling\n");
    writeFileSync(at("b.bin"), Buffer.from([0, 1, 2, 0x73]));
    expect((await failure(multi({ path: "b.bin", edits: [{ old: "s", new: "t" }] }))).message).toMatch(/not UTF-8 text/);
    writeFileSync(at("a.js"), CODE);
    const many = Array.from({ length: 101 }, () => ({ old: "a", new: "b" }));
    expect((await failure(multi({ path: "a.js", edits: many }))).code).toBe("INVALID_ARGS");
    expect((await failure(multi({ path: "a.js", edits: [] }))).code).toBe("INVALID_ARGS");
  });

  it("is approved once in mode safe with the whole diff, and a secret file needs a rule naming it", async () => {
    writeFileSync(at("a.js"), CODE);
    const approver = approveAll();
    const runner = makeRunner(sb.ws, { approval: "safe", approver });
    const out = await runner.run({
      name: "multi_edit",
      args: {
        path: "a.js",
        edits: [
          { old: "greet", new: "hello" },
          { old: "part", new: "piece" },
        ],
      },
    });
    expect(out.status).toBe("success");
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]!.preview).toContain("+function hello(name) {");
    expect(approver.requests[0]!.preview).toContain("+function piece(x) {");
    writeFileSync(at(".env"), "TOKEN=1\n");
    const secret = await runner.run({ name: "multi_edit", args: { path: ".env", edits: [{ old: "1", new: "2" }] } });
    expect(secret.status).not.toBe("success");
    expect(readFileSync(at(".env"), "utf8")).toBe("TOKEN=1\n");
    await runner.close();
  });
});
