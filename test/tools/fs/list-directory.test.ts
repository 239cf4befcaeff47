import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listDirectoryTool, MAX_LIST_ENTRIES } from "../../../src/tools/fs/list-directory.js";
import { ToolError } from "../../../src/core/errors.js";
import { makeRunner, makeSandbox, type Sandbox } from "./helpers.js";

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

const at = (...p: string[]) => path.join(sb.ws, ...p);
const list = (args: Record<string, unknown>) => listDirectoryTool.execute(args as never, sb.ctx);
type Listing = { entries: Array<{ name: string; type: string; size: number; modified: string }>; truncated?: boolean };

describe("list_directory", () => {
  beforeEach(() => {
    mkdirSync(at("src", "core"), { recursive: true });
    writeFileSync(at("src", "index.ts"), "export {};\n");
    writeFileSync(at("src", "core", "a.ts"), "a");
    writeFileSync(at("README.md"), "# hi\n");
    writeFileSync(at(".env"), "SECRET=1");
    mkdirSync(at(".git"));
    symlinkSync("README.md", at("readme-link"));
  });

  it("lists the root by default with name, type, size and ISO time; hidden names left out", async () => {
    const r = await list({});
    const s = r.structured as Listing;
    expect(s.entries.map((e) => `${e.type}:${e.name}`)).toEqual(["directory:src", "symlink:readme-link", "file:README.md"]);
    const readme = s.entries.find((e) => e.name === "README.md")!;
    expect(readme.size).toBe(5);
    expect(new Date(readme.modified).toISOString()).toBe(readme.modified);
    expect(r.content).toContain("src/");
    expect(r.content).toContain("readme-link -> README.md");
    expect(r.content).toContain("2 hidden entries not shown");
  });

  it("includeHidden shows dot files", async () => {
    const s = (await list({ path: ".", includeHidden: true })).structured as Listing;
    expect(s.entries.map((e) => e.name)).toEqual(expect.arrayContaining([".env", ".git"]));
  });

  it("recursive lists everything below, breadth first, without following links", async () => {
    symlinkSync("..", at("src", "up"));
    const s = (await list({ path: "src", recursive: true })).structured as Listing;
    expect(s.entries.map((e) => e.name)).toEqual(["core", "index.ts", "up", "core/a.ts"]);
  });

  it(`stops at ${MAX_LIST_ENTRIES} entries and says how to narrow`, async () => {
    mkdirSync(at("many"));
    for (let i = 0; i < MAX_LIST_ENTRIES + 50; i++) writeFileSync(at("many", `f${i}`), "");
    const r = await list({ path: ".", recursive: true });
    const s = r.structured as Listing;
    expect(s.entries).toHaveLength(MAX_LIST_ENTRIES);
    expect(s.truncated).toBe(true);
    expect(r.content).toContain("Listing stopped at 1,000 entries");
    expect(r.content).toContain("list a subfolder");
  });

  it("stops when cancelled, with CANCELLED", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(listDirectoryTool.execute({ path: "." } as never, { ...sb.ctx, signal: controller.signal })).rejects.toMatchObject({
      code: "CANCELLED",
    });
  });

  it("a dangling link is listed with its target", async () => {
    symlinkSync("nowhere.txt", at("src", "dangling"));
    const r = await list({ path: "src" });
    expect(r.content).toContain("dangling -> nowhere.txt");
  });

  it("refuses files and missing folders", async () => {
    await expect(list({ path: "README.md" })).rejects.toMatchObject({ code: "INVALID_PATH" });
    const err = await list({ path: "nope" }).catch((e: ToolError) => e);
    expect((err as ToolError).code).toBe("FILE_NOT_FOUND");
  });

  it("is auto-approved through the runner and refuses .ssh by policy", async () => {
    mkdirSync(at(".ssh"));
    const runner = makeRunner(sb.ws, { approval: "safe", approver: undefined });
    const ok = await runner.run({ name: "list_directory", args: { path: "src" } });
    expect(ok.status).toBe("success");
    expect(ok.approvedBy).toBe("auto");
    const ssh = await runner.run({ name: "list_directory", args: { path: ".ssh" } });
    expect(ssh.status).toBe("rejected");
    expect(ssh.error?.code).toBe("PERMISSION_DENIED");
    await runner.close();
  });
});
