import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FILE_TOOLS } from "../../../src/tools/fs/index.js";
import { makeRunner, makeSandbox, type Sandbox } from "./helpers.js";
import type { ToolRunner } from "../../../src/runtime/runner.js";

let sb: Sandbox;
let runner: ToolRunner;
const at = (...p: string[]) => path.join(sb.ws, ...p);

beforeEach(() => {
  sb = makeSandbox();
  runner = makeRunner(sb.ws, { approval: "all" });
});
afterEach(async () => {
  await runner.close();
  sb.cleanup();
});

describe("every parameter through the runner", () => {
  it("exposes the specs' parameter names in each input schema", () => {
    const props = Object.fromEntries(
      FILE_TOOLS.map((t) => [t.name, Object.keys((t.inputSchema as { properties: object }).properties).sort()]),
    );
    expect(props).toEqual({
      read_file: ["encoding", "limit", "offset", "path"],
      write_file: ["content", "createDirs", "encoding", "path"],
      append_file: ["content", "path"],
      edit_file: ["expected_replacements", "new", "old", "path", "replace_all"],
      multi_edit: ["edits", "path"],
      apply_patch: ["patch"],
      delete_file: ["path", "recursive"],
      move_file: ["from", "overwrite", "to"],
      copy_file: ["dest", "overwrite", "recursive", "source"],
      create_directory: ["path"],
      list_directory: ["includeHidden", "path", "recursive"],
    });
    for (const t of FILE_TOOLS) {
      for (const [name, prop] of Object.entries((t.inputSchema as { properties: Record<string, { description?: string }> }).properties)) {
        expect(prop.description, `${t.name}.${name}`).toBeTruthy();
      }
    }
  });

  it("write_file: encoding base64, createDirs and createDirectories", async () => {
    const b64 = Buffer.from("bytes!").toString("base64");
    expect(
      (await runner.run({ name: "write_file", args: { path: "x/y.bin", content: b64, encoding: "base64", createDirs: true } })).structured,
    ).toEqual({ path: "x/y.bin", size: 6, created: true });
    expect(readFileSync(at("x", "y.bin"), "utf8")).toBe("bytes!");
    const refused = await runner.run({ name: "write_file", args: { path: "q/r.txt", content: "x", createDirectories: false } });
    expect(refused.error?.code).toBe("FILE_NOT_FOUND");
    const wrongType = await runner.run({ name: "write_file", args: { path: "a.txt", content: 42 } });
    expect(wrongType.error?.code).toBe("INVALID_ARGS");
    const missing = await runner.run({ name: "write_file", args: { content: "x" } });
    expect(missing.error?.code).toBe("INVALID_ARGS");
    expect(missing.content).toContain("path");
  });

  it("read_file: offset, limit, encoding; results as JSON text arguments too", async () => {
    writeFileSync(at("f.txt"), "a\nb\nc\n");
    const out = await runner.run({ name: "read_file", args: JSON.stringify({ path: "f.txt", offset: 2, limit: 1, encoding: "utf-8" }) });
    expect(out.content.split("\n")[0]).toBe("     2\tb");
    const b64 = await runner.run({ name: "read_file", args: { path: "f.txt", encoding: "base64" } });
    expect(Buffer.from(b64.content, "base64").toString()).toBe("a\nb\nc\n");
    const missing = await runner.run({ name: "read_file", args: { path: "nope.txt" } });
    expect(missing.status).toBe("error");
    expect(missing.error).toMatchObject({ code: "FILE_NOT_FOUND", recoverable: false });
  });

  it("edit_file: old/new, old_string/new_string, replace_all, expected_replacements", async () => {
    writeFileSync(at("e.txt"), "x x x\n");
    expect(
      (await runner.run({ name: "edit_file", args: { path: "e.txt", old: "x", new: "y", replace_all: true } })).structured,
    ).toMatchObject({ replacements: 3 });
    expect(
      (await runner.run({ name: "edit_file", args: { path: "e.txt", old_string: "y", new_string: "z", expected_replacements: 3 } })).status,
    ).toBe("success");
    expect(readFileSync(at("e.txt"), "utf8")).toBe("z z z\n");
    const many = await runner.run({ name: "edit", args: { path: "e.txt", old: "z", new: "w" } });
    expect(many.status).toBe("error");
    expect(many.error?.code).toBe("INVALID_ARGS");
    expect(many.content).toContain("old matches 3 places");
  });

  it(
    "append_file, delete_file (recursive), move_file (overwrite), copy_file (overwrite, " +
      "recursive), create_directory, list_directory (recursive, includeHidden)",
    async () => {
      writeFileSync(at("log.txt"), "1\n");
      expect((await runner.run({ name: "append_file", args: { path: "log.txt", content: "2\n" } })).status).toBe("success");
      expect((await runner.run({ name: "create_directory", args: { path: "d/e" } })).structured).toEqual({ path: "d/e", created: true });
      writeFileSync(at("d", "e", ".hidden"), "h");
      const listed = await runner.run({ name: "list_directory", args: { path: "d", recursive: true, includeHidden: true } });
      expect((listed.structured as { entries: Array<{ name: string }> }).entries.map((e) => e.name)).toEqual(["e", "e/.hidden"]);
      expect((await runner.run({ name: "copy_file", args: { source: "d", dest: "d2", recursive: true } })).status).toBe("success");
      expect((await runner.run({ name: "copy_file", args: { source: "log.txt", dest: "d2/e/.hidden", overwrite: true } })).status).toBe(
        "success",
      );
      expect(readFileSync(at("d2", "e", ".hidden"), "utf8")).toBe("1\n2\n");
      expect((await runner.run({ name: "move_file", args: { from: "log.txt", to: "d2/e/.hidden", overwrite: true } })).structured).toEqual({
        from: "log.txt",
        to: "d2/e/.hidden",
      });
      const del = await runner.run({ name: "delete_file", args: { path: "d2", recursive: true } });
      expect(del.structured).toEqual({ deleted: ["d2", "d2/e/.hidden", "d2/e"] });
      expect(existsSync(at("d2"))).toBe(false);
      expect(del.metadata?.changedPaths).toEqual([{ path: "d2", operation: "deleted" }]);
    },
  );

  it("runs independent writes in parallel and same-path writes in order", async () => {
    mkdirSync(at("p"));
    const outcomes = await runner.runAll([
      { name: "write_file", args: { path: "p/same.txt", content: "first" } },
      { name: "append_file", args: { path: "p/same.txt", content: "+second" } },
      { name: "write_file", args: { path: "p/other.txt", content: "other" } },
      { name: "read_file", args: { path: "p/same.txt" } },
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["success", "success", "success", "success"]);
    expect(readFileSync(at("p", "same.txt"), "utf8")).toBe("first+second");
    expect(outcomes[3]!.content).toContain("first+second");
  });

  it("a cached read is invalidated by a write through tackle", async () => {
    const cached = makeRunner(sb.ws, { approval: "all", cache: {} });
    writeFileSync(at("c.txt"), "v1\n");
    expect((await cached.run({ name: "read_file", args: { path: "c.txt" } })).content).toContain("v1");
    await cached.run({ name: "edit_file", args: { path: "c.txt", old: "v1", new: "v2" } });
    expect((await cached.run({ name: "read_file", args: { path: "c.txt" } })).content).toContain("v2");
    await cached.close();
  });

  it("structured results match each tool's output schema", async () => {
    writeFileSync(at("t.txt"), "text\n");
    writeFileSync(at("empty.txt"), "");
    writeFileSync(at("b.bin"), Buffer.from([0, 1, 2]));
    writeFileSync(at("i.png"), Buffer.from("89504e470d0a1a0a00000000", "hex"));
    const calls = [
      { name: "read_file", args: { path: "t.txt" } },
      { name: "read_file", args: { path: "t.txt", offset: -1 } },
      { name: "read_file", args: { path: "empty.txt" } },
      { name: "read_file", args: { path: "b.bin" } },
      { name: "read_file", args: { path: "b.bin", encoding: "base64" } },
      { name: "read_file", args: { path: "i.png" } },
      { name: "write_file", args: { path: "w.txt", content: "w" } },
      { name: "list_directory", args: {} },
      { name: "move_file", args: { from: "w.txt", to: "w2.txt" } },
      { name: "delete_file", args: { path: "w2.txt" } },
    ];
    for (const call of calls) {
      const out = await runner.run(call);
      expect(out.status, JSON.stringify(call)).toBe("success");
      const tool = FILE_TOOLS.find((t) => t.name === call.name) as unknown as {
        output?: { safeParse(v: unknown): { success: boolean; error?: unknown } };
      };
      const checked = tool.output!.safeParse(out.structured);
      expect(checked.success, `${JSON.stringify(call)}: ${String(checked.error)}`).toBe(true);
    }
  });

  it("a cancelled read stops", async () => {
    writeFileSync(at("big.txt"), "line\n".repeat(100_000));
    const controller = new AbortController();
    controller.abort();
    const out = await runner.run({ name: "read_file", args: { path: "big.txt" } }, { signal: controller.signal });
    expect(out.status).toBe("cancelled");
  });
});
