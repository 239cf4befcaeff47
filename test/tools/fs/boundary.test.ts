import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FILE_TOOLS } from "../../../src/tools/fs/index.js";
import { ToolError } from "../../../src/core/errors.js";
import type { AnyTool } from "../../../src/core/tool.js";
import { MODES, makeRunner, makeSandbox, type Sandbox } from "./helpers.js";

/**
 * The workspace boundary: every way out must be refused with INVALID_PATH, by every tool, in
 * every approval mode (an approver that says yes to everything is attached), and nothing
 * outside may change.
 */
let sb: Sandbox;

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p, r);
      else out[r] = e.isSymbolicLink() ? "<link>" : readFileSync(p, "utf8");
    }
  };
  walk(dir, "");
  return out;
}

beforeAll(() => {
  sb = makeSandbox();
  writeFileSync(path.join(sb.outside, "secret.txt"), "outside secret");
  mkdirSync(path.join(sb.outside, "sub"));
  writeFileSync(path.join(sb.evil, "x.txt"), "evil sibling");
  writeFileSync(path.join(sb.ws, "inside.txt"), "inside");
  symlinkSync(path.join(sb.outside, "secret.txt"), path.join(sb.ws, "out-link"));
  symlinkSync("../outside/secret.txt", path.join(sb.ws, "rel-link"));
  symlinkSync(sb.outside, path.join(sb.ws, "out-dir"));
  symlinkSync(path.join(sb.outside, "does-not-exist.txt"), path.join(sb.ws, "dangling"));
  symlinkSync(path.join(sb.outside, "nowhere", "deep.txt"), path.join(sb.ws, "dangling-deep"));
  symlinkSync("out-link", path.join(sb.ws, "chain"));
  symlinkSync(sb.evil, path.join(sb.ws, "evil-dir"));
  symlinkSync("loop-b", path.join(sb.ws, "loop-a"));
  symlinkSync("loop-a", path.join(sb.ws, "loop-b"));
  mkdirSync(path.join(sb.ws, "nested"));
  symlinkSync("../../outside", path.join(sb.ws, "nested", "up"));
});
afterAll(() => sb.cleanup());

/** Paths that lead outside, as a model might send them. */
function attacks(): Record<string, string> {
  return {
    "dot-dot": "../outside/secret.txt",
    "dot-dot deep": "nested/../../outside/secret.txt",
    "absolute outside": path.join(sb.outside, "secret.txt"),
    "absolute new file outside": path.join(sb.outside, "new.txt"),
    "sibling prefix ws-evil (absolute)": path.join(sb.evil, "x.txt"),
    "sibling prefix ws-evil (relative)": "../ws-evil/x.txt",
    "sibling prefix new file": `${sb.ws}-evil/new.txt`,
    "symlink to an outside file": "out-link",
    "relative symlink to an outside file": "rel-link",
    "symlink chain": "chain",
    "symlinked folder": "out-dir/secret.txt",
    "new file in a symlinked folder": "out-dir/new.txt",
    "symlinked folder itself": "out-dir",
    "symlink to the sibling folder": "evil-dir/x.txt",
    "nested symlink climbing out": "nested/up/secret.txt",
    "dangling symlink to outside": "dangling",
    "dangling symlink to a missing outside folder": "dangling-deep",
    "null byte": "inside.txt\0../outside/secret.txt",
    tilde: "~/.bashrc",
    "symlink loop": "loop-a",
    "through a symlink loop": "loop-a/x.txt",
    "filesystem root": "/",
    "etc passwd": "/etc/passwd",
  };
}

/** Every way each tool takes a path, with the attack in that slot. */
function callsFor(p: string): Array<{ name: string; args: Record<string, unknown> }> {
  return [
    { name: "read_file", args: { path: p } },
    { name: "read_file", args: { path: p, encoding: "base64" } },
    { name: "write_file", args: { path: p, content: "pwned" } },
    { name: "append_file", args: { path: p, content: "pwned" } },
    { name: "edit_file", args: { path: p, old: "secret", new: "pwned" } },
    { name: "edit", args: { path: p, old_string: "secret", new_string: "pwned" } },
    { name: "delete_file", args: { path: p, recursive: true } },
    { name: "move_file", args: { from: p, to: "moved.txt", overwrite: true } },
    { name: "move_file", args: { from: "inside.txt", to: p, overwrite: true } },
    { name: "copy_file", args: { source: p, dest: "copied.txt", overwrite: true, recursive: true } },
    { name: "copy_file", args: { source: "inside.txt", dest: p, overwrite: true } },
    { name: "create_directory", args: { path: p } },
    { name: "list_directory", args: { path: p, recursive: true } },
  ];
}

describe("workspace boundary", () => {
  for (const mode of MODES) {
    it(`refuses every escape with INVALID_PATH in approval mode ${mode}`, async () => {
      const before = {
        outside: snapshot(sb.outside),
        evil: snapshot(sb.evil),
        inside: readFileSync(path.join(sb.ws, "inside.txt"), "utf8"),
      };
      const runner = makeRunner(sb.ws, { approval: mode });
      const failures: string[] = [];
      for (const [label, p] of Object.entries(attacks())) {
        for (const call of callsFor(p)) {
          const out = await runner.run(call);
          if (out.status !== "error" || out.error?.code !== "INVALID_PATH") {
            failures.push(
              `${label} via ${call.name} ${JSON.stringify(call.args)} -> ${out.status} ${out.error?.code ?? ""}: ${out.content.slice(0, 160)}`,
            );
          }
        }
      }
      expect(failures).toEqual([]);
      expect(snapshot(sb.outside)).toEqual(before.outside);
      expect(snapshot(sb.evil)).toEqual(before.evil);
      expect(readFileSync(path.join(sb.ws, "inside.txt"), "utf8")).toBe(before.inside);
      expect(existsSync(path.join(sb.ws, "moved.txt")) || existsSync(path.join(sb.ws, "copied.txt"))).toBe(false);
      await runner.close();
    });
  }

  it("refuses every escape when tools are called directly (no runner)", async () => {
    const byName = new Map<string, AnyTool>(FILE_TOOLS.map((t) => [t.name, t]));
    const failures: string[] = [];
    for (const [label, p] of Object.entries(attacks())) {
      for (const call of callsFor(p)) {
        const tool = byName.get(call.name === "edit" ? "edit_file" : call.name)!;
        try {
          await tool.execute(call.args, sb.ctx);
          failures.push(`${label} via ${call.name}: succeeded`);
        } catch (err) {
          if (!(err instanceof ToolError) || err.code !== "INVALID_PATH") failures.push(`${label} via ${call.name}: ${String(err)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(readFileSync(path.join(sb.outside, "secret.txt"), "utf8")).toBe("outside secret");
  });

  it("says why: outside, through a symbolic link, or a null byte", async () => {
    const runner = makeRunner(sb.ws, { approval: "all" });
    const dotdot = await runner.run({ name: "read_file", args: { path: "../outside/secret.txt" } });
    expect(dotdot.content).toContain("outside the workspace");
    const link = await runner.run({ name: "read_file", args: { path: "out-link" } });
    expect(link.content).toContain("symbolic link");
    const nul = await runner.run({ name: "read_file", args: { path: "a\0b" } });
    expect(nul.content).toContain("null byte");
    await runner.close();
  });

  it("cannot write into the runner's spill folder (read-only extra root)", async () => {
    const runner = makeRunner(sb.ws, { approval: "all", maxOutputChars: 200 });
    writeFileSync(path.join(sb.ws, "long.txt"), "x\n".repeat(2000));
    const out = await runner.run({ name: "read_file", args: { path: "long.txt" } });
    const spilled = out.metadata?.fullOutputPath as string;
    expect(spilled).toBeTruthy();
    const write = await runner.run({ name: "write_file", args: { path: spilled, content: "x" } });
    expect(write.error?.code).toBe("INVALID_PATH");
    await runner.close();
  });
});

describe("names that begin with dots", () => {
  it("are inside: written, read, edited and listed like any other name", async () => {
    const runner = makeRunner(sb.ws, { approval: "all" });
    mkdirSync(path.join(sb.ws, "dots"));
    for (const p of ["..foo", "dots/..bar", "dots/...", "./..baz"]) {
      expect((await runner.run({ name: "write_file", args: { path: p, content: "mine" } })).status, p).toBe("success");
      expect((await runner.run({ name: "edit_file", args: { path: p, old: "mine", new: "ours" } })).status, p).toBe("success");
      const read = await runner.run({ name: "read_file", args: { path: p } });
      expect(read.status, p).toBe("success");
      expect(read.content, p).toContain("ours");
      expect(readFileSync(path.join(sb.ws, p), "utf8")).toBe("ours");
    }
    const listed = await runner.run({ name: "list_directory", args: { path: "dots", includeHidden: true } });
    expect(listed.content).toContain("..bar");
    await runner.close();
  });

  it("do not let a link so named lead outside", async () => {
    symlinkSync(path.join(sb.outside, "secret.txt"), path.join(sb.ws, "..secret"));
    const runner = makeRunner(sb.ws, { approval: "all" });
    for (const call of [
      { name: "read_file", args: { path: "..secret" } },
      { name: "write_file", args: { path: "..secret", content: "pwned" } },
      { name: "read_file", args: { path: "../..foo" } },
      { name: "write_file", args: { path: "dots/../../..foo", content: "pwned" } },
    ]) {
      expect((await runner.run(call)).error?.code, JSON.stringify(call)).toBe("INVALID_PATH");
    }
    expect(readFileSync(path.join(sb.outside, "secret.txt"), "utf8")).toBe("outside secret");
    expect(existsSync(path.join(sb.outside, "..foo")) || existsSync(path.join(path.dirname(sb.ws), "..foo"))).toBe(false);
    await runner.close();
  });
});

describe("hard links to files outside", () => {
  for (const mode of MODES) {
    it(`writes replace the link and leave the outside file unchanged (mode ${mode})`, async () => {
      const target = path.join(sb.outside, `hard-${mode}.txt`);
      writeFileSync(target, "outside original secret");
      const names = ["w", "a", "e", "c", "m"].map((k) => `hl-${mode}-${k}.txt`);
      for (const n of names) linkSync(target, path.join(sb.ws, n));
      writeFileSync(path.join(sb.ws, `src-${mode}.txt`), "replacement");
      const runner = makeRunner(sb.ws, { approval: mode });
      const calls = [
        { name: "write_file", args: { path: names[0], content: "new" } },
        { name: "append_file", args: { path: names[1], content: " more" } },
        { name: "edit_file", args: { path: names[2], old: "secret", new: "changed" } },
        { name: "copy_file", args: { source: `src-${mode}.txt`, dest: names[3], overwrite: true } },
        { name: "move_file", args: { from: `src-${mode}.txt`, to: names[4], overwrite: true } },
      ];
      for (const call of calls) expect((await runner.run(call)).status, call.name).toBe("success");
      expect(readFileSync(target, "utf8")).toBe("outside original secret");
      expect(readFileSync(path.join(sb.ws, names[0]!), "utf8")).toBe("new");
      expect(readFileSync(path.join(sb.ws, names[1]!), "utf8")).toBe("outside original secret more");
      expect(readFileSync(path.join(sb.ws, names[2]!), "utf8")).toBe("outside original changed");
      expect(readFileSync(path.join(sb.ws, names[3]!), "utf8")).toBe("replacement");
      expect(readFileSync(path.join(sb.ws, names[4]!), "utf8")).toBe("replacement");
      await runner.close();
    });
  }

  it("deleting a hard link removes only the name inside", async () => {
    const target = path.join(sb.outside, "hard-del.txt");
    writeFileSync(target, "keep");
    linkSync(target, path.join(sb.ws, "hl-del.txt"));
    const runner = makeRunner(sb.ws, { approval: "all" });
    expect((await runner.run({ name: "delete_file", args: { path: "hl-del.txt" } })).status).toBe("success");
    expect(readFileSync(target, "utf8")).toBe("keep");
    await runner.close();
  });
});

/**
 * The MCP reference filesystem server (@modelcontextprotocol/server-filesystem) had two 2025
 * escapes: CVE-2025-53110, an allowed-directory check by string prefix (`/data` admitted
 * `/data-evil`), and CVE-2025-53109, symlink handling that, when the real path could not be
 * resolved (a dangling link or a missing file), validated the link's parent instead of its
 * target, so writing through a link created or changed files anywhere.
 */
describe("regressions of the MCP filesystem server's 2025 bypasses", () => {
  it("CVE-2025-53110 style: a sibling that shares the workspace's prefix is outside", async () => {
    const runner = makeRunner(sb.ws, { approval: "all" });
    for (const p of [`${sb.ws}-evil/x.txt`, `${sb.ws}-evil`, `${sb.ws}-evil/../ws-evil/x.txt`, `${sb.ws}_other/x.txt`, `${sb.ws}evil`]) {
      for (const call of [
        { name: "read_file", args: { path: p } },
        { name: "list_directory", args: { path: p } },
        { name: "write_file", args: { path: p, content: "pwned" } },
      ]) {
        const out = await runner.run(call);
        expect(out.error?.code, `${call.name} ${p}`).toBe("INVALID_PATH");
      }
    }
    expect(readFileSync(path.join(sb.evil, "x.txt"), "utf8")).toBe("evil sibling");
    expect(existsSync(`${sb.ws}_other`) || existsSync(`${sb.ws}evil`)).toBe(false);
    await runner.close();
  });

  it("CVE-2025-53109 style: a dangling link to outside cannot be used to create the target", async () => {
    const runner = makeRunner(sb.ws, { approval: "all" });
    for (const call of [
      { name: "write_file", args: { path: "dangling", content: "created outside" } },
      { name: "write_file", args: { path: "dangling-deep", content: "created outside" } },
      { name: "create_directory", args: { path: "dangling" } },
      { name: "copy_file", args: { source: "inside.txt", dest: "dangling" } },
      { name: "move_file", args: { from: "inside.txt", to: "dangling" } },
    ]) {
      expect((await runner.run(call)).error?.code, call.name).toBe("INVALID_PATH");
    }
    expect(existsSync(path.join(sb.outside, "does-not-exist.txt"))).toBe(false);
    expect(existsSync(path.join(sb.outside, "nowhere"))).toBe(false);
    await runner.close();
  });

  it("CVE-2025-53109 style: a link to an outside file cannot be read, overwritten or edited", async () => {
    const runner = makeRunner(sb.ws, { approval: "all" });
    for (const call of [
      { name: "read_file", args: { path: "out-link" } },
      { name: "write_file", args: { path: "out-link", content: "pwned" } },
      { name: "edit_file", args: { path: "out-link", old: "secret", new: "pwned" } },
      { name: "append_file", args: { path: "out-link", content: "pwned" } },
      { name: "write_file", args: { path: "out-dir/sub/new.txt", content: "pwned" } },
    ]) {
      expect((await runner.run(call)).error?.code, call.name).toBe("INVALID_PATH");
    }
    expect(readFileSync(path.join(sb.outside, "secret.txt"), "utf8")).toBe("outside secret");
    expect(readdirSync(path.join(sb.outside, "sub"))).toEqual([]);
    await runner.close();
  });

  it("a link created inside after resolution of its folder is still judged by its target", async () => {
    // The link appears between two calls: the second call resolves it afresh.
    const runner = makeRunner(sb.ws, { approval: "all" });
    expect((await runner.run({ name: "write_file", args: { path: "late.txt", content: "ok" } })).status).toBe("success");
    const { rmSync } = await import("node:fs");
    rmSync(path.join(sb.ws, "late.txt"));
    symlinkSync(path.join(sb.outside, "late-target.txt"), path.join(sb.ws, "late.txt"));
    expect((await runner.run({ name: "write_file", args: { path: "late.txt", content: "pwned" } })).error?.code).toBe("INVALID_PATH");
    expect(existsSync(path.join(sb.outside, "late-target.txt"))).toBe(false);
    await runner.close();
  });
});
