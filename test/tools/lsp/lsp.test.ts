import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { ToolRunner } from "../../../src/runtime/runner.js";
import { LspManager } from "../../../src/tools/lsp/lsp-manager.js";
import { definitionTool } from "../../../src/tools/lsp/definition.js";
import { diagnosticsTool } from "../../../src/tools/lsp/diagnostics.js";
import { hoverTool } from "../../../src/tools/lsp/hover.js";
import { referencesTool } from "../../../src/tools/lsp/references.js";
import { symbolsTool } from "../../../src/tools/lsp/symbols.js";
import { resolveServers } from "../../../src/tools/lsp/lsp-config.js";
import { lspTools } from "../../../src/tools/lsp/index.js";
import { tempDir } from "../../support/tools.js";
import { descendantsOf } from "../../../src/process/process-tree.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const server = path.join(repoRoot, "node_modules", ".bin", "typescript-language-server");

let ws: ReturnType<typeof tempDir>;
let manager: LspManager;
let runner: ToolRunner;

beforeAll(() => {
  ws = tempDir();
  mkdirSync(path.join(ws.dir, "src"));
  writeFileSync(
    path.join(ws.dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler" },
      include: ["src"],
    }),
  );
  writeFileSync(
    path.join(ws.dir, "src", "math.ts"),
    [
      "/** Adds two numbers. */",
      "export function add(a: number, b: number): number {",
      "  return a + b;",
      "}",
      "",
      "export class Calc {",
      "  total = 0;",
      "  plus(n: number) {",
      "    this.total = add(this.total, n);",
      "  }",
      "}",
      "",
    ].join("\n"),
  );
  writeFileSync(
    path.join(ws.dir, "src", "use.ts"),
    ['import { add } from "./math";', "", "const n: string = add(1, 2);", "export const m = add(n.length, 3);", ""].join("\n"),
  );
  manager = new LspManager({ typescript: { command: server, args: ["--stdio"], extensions: [".ts"] } });
  const registry = new ToolRegistry();
  registry.registerAll([diagnosticsTool, symbolsTool, hoverTool, definitionTool, referencesTool].map((tool) => tool(manager)));
  runner = new ToolRunner({ registry, workspace: ws.dir, cache: false });
});

afterAll(async () => {
  await runner.close();
  await manager.close();
  ws.cleanup();
});

describe("LSP tools against typescript-language-server", () => {
  it("gives the server a temporary folder of its own and removes it when the server stops", async () => {
    const before = new Set(readdirSync(os.tmpdir()));
    const extra = new LspManager({ typescript: { command: server, args: ["--stdio"], extensions: [".ts"] } });
    const registry = new ToolRegistry();
    registry.register(symbolsTool(extra));
    const own = new ToolRunner({ registry, workspace: ws.dir, cache: false });
    expect((await own.run({ name: "symbols", args: { path: "src/math.ts" } })).status).toBe("success");
    await own.close();
    await extra.close();
    expect(readdirSync(os.tmpdir()).filter((name) => !before.has(name) && /^([0-9a-f]{32}|tackle-lsp-.*)$/.test(name))).toEqual([]);
  });

  it("reports diagnostics with positions", async () => {
    const out = await runner.run({ name: "diagnostics", args: { path: "src/use.ts" } });
    expect(out.status).toBe("success");
    expect(out.content).toMatch(/src\/use\.ts:3:7: error: Type 'number' is not assignable to type 'string'/);
    const clean = await runner.run({ name: "diagnostics", args: { path: "src/math.ts" } });
    expect(clean.content).toBe("No problems found in src/math.ts.");
  });

  it("sees edits made after the file was opened", async () => {
    writeFileSync(
      path.join(ws.dir, "src", "use.ts"),
      ['import { add } from "./math";', "", "const n: number = add(1, 2);", "export const m = add(n, 3);", ""].join("\n"),
    );
    const out = await runner.run({ name: "diagnostics", args: { path: "src/use.ts" } });
    expect(out.content).toBe("No problems found in src/use.ts.");
  });

  it("lists symbols as an outline", async () => {
    const out = await runner.run({ name: "symbols", args: { path: "src/math.ts" } });
    expect(out.content).toMatch(/^function add \(line 2\)$/m);
    expect(out.content).toMatch(/^class Calc \(line 6\)$/m);
    expect(out.content).toMatch(/^ {2}method plus \(line 8\)$/m);
  });

  it("hovers, finds the definition and the references", async () => {
    const hover = await runner.run({ name: "hover", args: { path: "src/math.ts", line: 9, col: 20 } });
    expect(hover.content).toMatch(/function add\(a: number, b: number\): number/);
    expect(hover.content).toMatch(/Adds two numbers/);
    const def = await runner.run({ name: "definition", args: { path: "src/use.ts", line: 3, col: 19 } });
    expect(def.content).toMatch(/^src\/math\.ts:2:17: export function add/);
    const refs = await runner.run({ name: "references", args: { path: "src/math.ts", line: 2, col: 17 } });
    expect(refs.content).toMatch(/src\/math\.ts:9:\d+: this\.total = add/);
    expect(refs.content).toMatch(/src\/use\.ts:1:10: import \{ add \}/);
  });

  it("refuses positions past the end, files outside, and unknown file types", async () => {
    expect((await runner.run({ name: "hover", args: { path: "src/math.ts", line: 99, col: 1 } })).content).toMatch(
      /past the end of src\/math\.ts \(12 lines\)/,
    );
    expect((await runner.run({ name: "symbols", args: { path: "../x.ts" } })).error?.code).toBe("INVALID_PATH");
    writeFileSync(path.join(ws.dir, "notes.md"), "# hi");
    const md = await runner.run({ name: "symbols", args: { path: "notes.md" } });
    expect(md.error?.code).toBe("UNAVAILABLE");
    expect(md.content).toMatch(/No language server handles "\.md"/);
  });

  it("stops the server and its children on close", async () => {
    const extra = new LspManager({ typescript: { command: server, args: ["--stdio"], extensions: [".ts"] } });
    const client = extra.clientFor(path.join(ws.dir, "src/math.ts"), ws.dir);
    await client.sync(path.join(ws.dir, "src/math.ts"));
    const before = await descendantsOf(process.pid);
    await extra.close();
    await new Promise((r) => setTimeout(r, 200));
    const after = await descendantsOf(process.pid);
    expect(after.length).toBeLessThan(before.length);
  });

  it("registers only when a server is configured or installed", async () => {
    const tools = await lspTools({
      config: { lsp: { servers: { ts: { command: server, args: ["--stdio"], extensions: [".ts"] } } } },
      env: {},
      workspace: ws.dir,
      logger: console as never,
    });
    expect(tools.map((t) => t.name)).toEqual(["diagnostics", "symbols", "hover", "definition", "references"]);
    const configured = resolveServers({ servers: { py: { command: "my-pylsp", extensions: [".py"] } } }, ws.dir);
    expect(configured.py).toMatchObject({ command: "my-pylsp", args: [] });
    expect(configured.python).toBeUndefined();
  });
});
