import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRegistry, loadConfig, ToolRunner } from "../../../src/index.js";
import { tempDir } from "../../support/tools.js";
import { runCli } from "../../cli/run-cli.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const DIST = pathToFileURL(path.join(REPO, "dist/index.js")).href;
// By file, as the temporary workspace has no node_modules of its own for a plain Node to search.
const ZOD = pathToFileURL(path.join(REPO, "node_modules/zod/index.js")).href;

let ws: ReturnType<typeof tempDir>;
beforeEach(() => {
  ws = tempDir();
  mkdirSync(path.join(ws.dir, ".tackle", "tools"), { recursive: true });
  // A defineTool module, as a user writes one (tackle imported from the build here).
  writeFileSync(
    path.join(ws.dir, ".tackle", "tools", "greet.mjs"),
    `import { z } from ${JSON.stringify(ZOD)};\nimport { defineTool, ToolError } from ${JSON.stringify(DIST)};\n` +
      `export const greet = defineTool({ name: "greet", description: "Greets someone.", effect: "read",\n` +
      `  input: z.object({ who: z.string() }), execute: async ({ who }) => "hello " + who });\n` +
      `export const lookup = defineTool({ name: "lookup", description: "Looks a name up.", effect: "read",\n` +
      `  input: z.object({ who: z.string() }),\n` +
      `  execute: async ({ who }) => { throw new ToolError("FILE_NOT_FOUND", "No entry for " + who + ".", { details: { who } }); } });\n`,
  );
  // A CommonJS module exporting a plain tool object with a JSON Schema.
  writeFileSync(
    path.join(ws.dir, ".tackle", "tools", "shout.js"),
    `module.exports = { shout: { name: "shout", description: "Shouts.", inputSchema: { type: "object", properties: { text: { type: "string" } } },\n` +
      `  execute: async ({ text }) => String(text).toUpperCase() } };\n`,
  );
});
afterEach(() => ws.cleanup());

function configure(config: Record<string, unknown>) {
  writeFileSync(path.join(ws.dir, "tackle.config.json"), JSON.stringify(config));
  return loadConfig({ dir: ws.dir, env: {} });
}

describe("tools from the workspace's own modules", () => {
  it("are loaded only when configuration says so", async () => {
    const registry = await createRegistry(configure({}));
    expect(registry.has("greet")).toBe(false);
  });

  it("with toolModules: true, every .js and .mjs in .tackle/tools joins, and runs through the runner", async () => {
    const loaded = configure({ toolModules: true });
    const registry = await createRegistry(loaded, { toolset: "coding" });
    expect(registry.list().map((t) => t.name)).toEqual(expect.arrayContaining(["greet", "shout"]));
    const runner = new ToolRunner({ registry, workspace: ws.dir });
    expect((await runner.run({ name: "greet", args: { who: "you" } })).content).toBe("hello you");
    expect((await runner.run({ name: "greet", args: {} })).error?.code).toBe("INVALID_ARGS");
    expect((await runner.run({ name: "shout", args: { text: "hi" } }, {})).status).toBe("rejected");
    await runner.close();
  });

  it("keep the code of a ToolError thrown from another copy of tackle (the module imports the build)", async () => {
    const registry = await createRegistry(configure({ toolModules: true }), { toolset: "coding" });
    const runner = new ToolRunner({ registry, workspace: ws.dir });
    const outcome = await runner.run({ name: "lookup", args: { who: "ann" } });
    expect(outcome.error).toMatchObject({ code: "FILE_NOT_FOUND", message: "No entry for ann.", details: { who: "ann" } });
    await runner.close();
  });

  it("run through the bundled command, their errors intact", { timeout: 120_000 }, async () => {
    configure({ toolModules: true });
    const greeted = await runCli(["call", "greet", "who=you"], { cwd: ws.dir });
    expect(greeted.stdout, greeted.stderr).toContain("hello you");
    const failed = await runCli(["call", "lookup", "who=ann", "--json"], { cwd: ws.dir });
    expect(JSON.parse(failed.stdout).error).toMatchObject({ code: "FILE_NOT_FOUND", message: "No entry for ann." });
  });

  it("refuses a module outside the workspace, one that exports no tool, and one that fails to load", async () => {
    const outside = tempDir();
    try {
      writeFileSync(path.join(outside.dir, "evil.mjs"), `export const x = { name: "evil", execute: async () => "" };\n`);
      symlinkSync(path.join(outside.dir, "evil.mjs"), path.join(ws.dir, "link.mjs"));
      await expect(createRegistry(configure({ toolModules: ["link.mjs"] }))).rejects.toThrow(/outside the workspace/);
      writeFileSync(path.join(ws.dir, "empty.mjs"), "export const nothing = 1;\n");
      await expect(createRegistry(configure({ toolModules: ["empty.mjs"] }))).rejects.toThrow(/exports no tool; export defineTool/);
      writeFileSync(path.join(ws.dir, "broken.mjs"), "export const = ;\n");
      await expect(createRegistry(configure({ toolModules: ["broken.mjs"] }))).rejects.toThrow(/broken.mjs could not be loaded/);
      await expect(createRegistry(configure({ toolModules: ["missing.mjs"] }))).rejects.toThrow(/does not exist/);
      writeFileSync(path.join(ws.dir, "again.js"), readFileSync(path.join(ws.dir, ".tackle", "tools", "shout.js")));
      await expect(createRegistry(configure({ toolModules: [".tackle/tools", "again.js"] }))).rejects.toThrow(
        /Two tool modules define "shout": .tackle\/tools\/shout.js and again.js/,
      );
    } finally {
      outside.cleanup();
    }
  });
});
