import { execFile } from "node:child_process";
import { mkdirSync, utimesSync } from "node:fs";
import { promisify } from "node:util";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGlobTool } from "../../../src/tools/search/glob.js";
import { searchTools } from "../../../src/tools/search/index.js";
import { createLogger } from "../../../src/core/logger.js";
import { BACKENDS, failure, makeRunner, makeSandbox, type Sandbox } from "./helpers.js";

const execFileAsync = promisify(execFile);

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

/** Sets a file's modification time to `secondsAgo` before a fixed moment. */
function age(sandbox: Sandbox, rel: string, secondsAgo: number): void {
  const t = new Date(Date.UTC(2026, 0, 1) - secondsAgo * 1000);
  utimesSync(path.join(sandbox.ws, rel), t, t);
}

describe.each(BACKENDS)("glob (%s backend)", (backend) => {
  const tool = createGlobTool({ backend });
  const glob = (args: Record<string, unknown>) => tool.execute(args as never, sb.ctx);

  it("lists matching files newest first, relative to the workspace", async () => {
    sb.write({ "src/old.ts": "", "src/new.ts": "", "src/mid/x.ts": "", "src/readme.md": "", "top.ts": "" });
    age(sb, "src/old.ts", 300);
    age(sb, "src/mid/x.ts", 200);
    age(sb, "src/new.ts", 100);
    age(sb, "top.ts", 400);
    const r = await glob({ pattern: "**/*.ts" });
    expect(r.content).toBe("src/new.ts\nsrc/mid/x.ts\nsrc/old.ts\ntop.ts");
    expect(r.structured).toEqual({
      files: ["src/new.ts", "src/mid/x.ts", "src/old.ts", "top.ts"],
      total: 4,
      truncated: false,
      order: "modified",
    });
    expect((await glob({ pattern: "**/*.ts", sort: "path" })).content).toBe("src/mid/x.ts\nsrc/new.ts\nsrc/old.ts\ntop.ts");
  });

  it("a folder of 200,000 entries is listed, not a stack overflow", async () => {
    const many = path.join(sb.ws, "many");
    mkdirSync(many);
    // Made by another process: a loop here would hold the test worker for seconds on a busy machine.
    await execFileAsync("sh", ["-c", "seq 0 199999 | sed 's/^/f/' | xargs touch"], { cwd: many });
    const r = await glob({ pattern: "many/*" });
    expect(r.structured).toMatchObject({
      total: 200_000,
      truncated: true,
      order: "path",
      files: ["many/f0", "many/f1", "many/f10"].concat(Array(197).fill(expect.any(String))),
    });
    expect(r.content.split("\n").at(-1)).toBe(
      "[Showing the first 200 in path order of 200000 matching files. Use a more specific pattern or path, or raise maxResults (up to 5000). " +
        'They are not newest first because over 5000 match; sort: "modified" orders them by time.]',
    );
    utimesSync(path.join(many, "f123456"), 4e9, 4e9);
    const newest = await glob({ pattern: "many/*", sort: "modified", maxResults: 1 });
    expect(newest.structured).toEqual({ files: ["many/f123456"], total: 200_000, truncated: true, order: "modified" });
    expect(newest.content).toBe(
      "many/f123456\n\n[Showing the 1 most recently modified of 200000 matching files. Use a more specific pattern or path, or raise maxResults (up to 5000).]",
    );
  }, 120_000);

  it("matches patterns against paths relative to path, with * staying in one folder", async () => {
    sb.write({ "a.json": "", "b.yml": "", "sub/c.json": "", "src/lib/d.ts": "", "src/e.ts": "" });
    const names = async (args: Record<string, unknown>) => (await glob(args)).content.split("\n").sort();
    expect(await names({ pattern: "*.{json,yml}" })).toEqual(["a.json", "b.yml"]);
    expect(await names({ pattern: "**/*.json" })).toEqual(["a.json", "sub/c.json"]);
    expect(await names({ pattern: "lib/*.ts", path: "src" })).toEqual(["src/lib/d.ts"]);
    expect(await names({ pattern: "*.ts", path: "src" })).toEqual(["src/e.ts"]);
    expect(await names({ pattern: "src/lib/**" })).toEqual(["src/lib/d.ts"]);
    expect(await names({ pattern: "./src/*.ts" })).toEqual(["src/e.ts"]);
    expect(await names({ pattern: `${sb.ws}/src/*.ts` })).toEqual(["src/e.ts"]);
    expect(await names({ pattern: "src/e.ts" })).toEqual(["src/e.ts"]);
  });

  it("honours .gitignore and .ignore, includes hidden files, skips .git", async () => {
    sb.write({
      ".gitignore": "dist/\n*.tmp\n",
      "dist/a.js": "",
      "x.tmp": "",
      "keep.js": "",
      ".github/workflows/ci.yml": "",
      ".git/HEAD": "",
      "pkg/.ignore": "fixtures\n",
      "pkg/fixtures/f.js": "",
      "pkg/index.js": "",
    });
    const all = (await glob({ pattern: "**/*" })).content.split("\n").sort();
    expect(all).toEqual([".github/workflows/ci.yml", ".gitignore", "keep.js", "pkg/.ignore", "pkg/index.js"]);
  });

  it("explains an empty result and hints at ** for a bare name pattern", async () => {
    sb.write({ "src/a.ts": "" });
    const r = await glob({ pattern: "*.ts" });
    expect(r.content).toBe(
      'No files match "*.ts" in .. The pattern is matched against whole paths relative to ' +
        '., so "*.ts" only finds files directly in it; use "**/*.ts" to look in every folder.',
    );
    expect((await glob({ pattern: "**/*.py" })).content).toBe('No files match "**/*.py" in ..');
  });

  it("caps the list with a notice", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`f${i}.txt`] = "";
    sb.write(files);
    const r = await glob({ pattern: "*.txt", maxResults: 10 });
    const lines = r.content.split("\n");
    expect(lines.slice(0, 10).every((l) => /^f\d+\.txt$/.test(l))).toBe(true);
    expect(r.content).toContain("Showing the 10 most recently modified of 30 matching files");
    expect(r.structured).toMatchObject({ total: 30, truncated: true });
  });

  it("refuses a file as path and a missing directory", async () => {
    sb.write({ "a.txt": "" });
    expect((await failure(glob({ pattern: "*", path: "a.txt" }))).code).toBe("INVALID_ARGS");
    expect((await failure(glob({ pattern: "*", path: "nope" }))).code).toBe("FILE_NOT_FOUND");
  });

  it("answers to spec 002's name search_files through the registry", async () => {
    sb.write({ "src/a.ts": "" });
    const runner = makeRunner(sb.ws, backend, { approval: "safe" });
    const outcome = await runner.run({ name: "search_files", args: { pattern: "**/*.ts", path: "src" } });
    expect(outcome.status).toBe("success");
    expect(outcome.content).toBe("src/a.ts");
    await runner.close();
  });

  it("lists files in a directory reached through a folder named in the pattern", async () => {
    mkdirSync(path.join(sb.ws, "empty"));
    sb.write({ "deep/a/b/c.txt": "" });
    expect((await glob({ pattern: "deep/a/**/*.txt" })).content).toBe("deep/a/b/c.txt");
    expect((await glob({ pattern: "empty/**" })).content).toMatch(/^No files match/);
  });
});

describe("searchTools group", () => {
  it("builds glob and grep, and validates its configuration section", async () => {
    const ctx = { config: {}, env: {}, workspace: sb.ws, logger: createLogger("error") };
    const tools = await searchTools(ctx);
    expect(tools.map((t) => t.name)).toEqual(["glob", "grep"]);
    await expect(async () => searchTools({ ...ctx, config: { search: { backend: "grep" } } as never })).rejects.toThrow(/search/);
    const builtin = await searchTools({ ...ctx, config: { search: { backend: "builtin" } } as never });
    sb.write({ "a.txt": "x\n" });
    const r = await builtin[1]!.execute({ pattern: "x" }, sb.ctx);
    expect(r.metadata).toMatchObject({ engine: "builtin" });
  });
});
