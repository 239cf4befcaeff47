import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/*
 * The layers of docs/ARCHITECTURE.md, checked: a file may import from its own layer and from
 * layers below it, never from one above or beside it. The shell's grammar is a parser and nothing
 * else: of the rest of tackle it uses only the loader of its grammar's WebAssembly and the command
 * tables kept as data in tools/shell/rules/.
 */

const SRC = path.resolve(import.meta.dirname, "../../src");

/** Each layer and its height; a file imports only from lower heights or its own layer. */
const HEIGHT: Record<string, number> = {
  core: 0,
  compat: 1,
  process: 1,
  registry: 2,
  net: 2,
  workspace: 2,
  config: 3,
  sandbox: 3,
  runtime: 4,
  "mcp/client": 5,
  tools: 5,
  adapters: 5,
  store: 5,
  session: 6,
  serve: 7,
  "mcp/server": 7,
  cli: 8,
  index: 9,
};

function layerOf(file: string): string {
  const rel = path.relative(SRC, file).split(path.sep);
  if (rel.length === 1) return rel[0]!.replace(/\.[jt]s$/, "");
  return rel[0] === "mcp" ? `mcp/${rel[1]}` : rel[0]!;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
  );
}

const IMPORT = /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;

describe("layers", () => {
  it("every import points down (or stays in its layer)", () => {
    const wrong: string[] = [];
    for (const file of sources(SRC)) {
      const from = layerOf(file);
      for (const m of readFileSync(file, "utf8").matchAll(IMPORT)) {
        const to = layerOf(path.resolve(path.dirname(file), m[1]!));
        if (to === from) continue;
        if (HEIGHT[from] === undefined || HEIGHT[to] === undefined)
          wrong.push(`${path.relative(SRC, file)}: unknown layer ${from} or ${to}`);
        else if (HEIGHT[to]! >= HEIGHT[from]!) wrong.push(`${path.relative(SRC, file)} (${from}) imports ${m[1]} (${to})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("the shell grammar imports nothing of tackle outside itself but its loader and the rules' data", () => {
    const dir = path.join(SRC, "tools/shell/analysis");
    const outside = sources(dir).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(IMPORT)]
        .map((m) => path.resolve(path.dirname(file), m[1]!))
        .filter(
          (target) =>
            !target.startsWith(dir) &&
            !target.startsWith(path.join(SRC, "tools/shell/rules")) &&
            // Its loader: the import of the grammar's runtime, and the compiler setting its wasm is loaded with.
            target !== path.join(SRC, "process/import-at-runtime.js") &&
            target !== path.join(SRC, "process/baseline-wasm.js"),
        )
        .map((target) => `${path.relative(SRC, file)} imports ${path.relative(SRC, target)}`),
    );
    expect(outside).toEqual([]);
  });
});
