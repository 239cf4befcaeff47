import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Parser, Tree } from "web-tree-sitter";
import { withBaselineWasm } from "../../../process/baseline-wasm.js";

const require = createRequire(import.meta.url);

let ready: Promise<Parser> | undefined;

/**
 * The bash grammar, loaded once and lazily: the library and its wasm cost tens of milliseconds to
 * load and compile, so nothing pays for them until the first command is judged, and every later
 * call reuses them.
 */
export function bashParser(): Promise<Parser> {
  ready ??= (async () => {
    const { Language, Parser } = await import("web-tree-sitter");
    const language = await withBaselineWasm(async () => {
      await Parser.init({ locateFile: () => packageFile("web-tree-sitter", "tree-sitter.wasm") });
      // Bytes, not a path: given a path it would import() node:fs/promises, which the bundle cannot.
      return Language.load(await readFile(packageFile("tree-sitter-bash", "tree-sitter-bash.wasm")));
    });
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  // A failed load must not poison every later call with the same rejected promise.
  ready.catch(() => {
    ready = undefined;
  });
  return ready;
}

/**
 * A file of an installed package, looked for as Node looks for packages (node_modules in this
 * module's folder, then in each folder above): Node's resolver, loaded by the first
 * require.resolve, cost about 2 ms of a process's first shell call. It still answers where no such
 * folder holds the package.
 */
function packageFile(name: string, file: string): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name, file);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return require.resolve(`${name}/${file}`);
  }
}

/** A line that takes the parser through its common paths: words, quotes, expansions, a pipe, a list, redirections, a comment. */
const WARM_LINE = `a -b "c $d" 'e' $(f) | g && h > i 2>&1 <<< j # k`;

/**
 * Loads the grammar and parses one line with it, so the WebAssembly a first parse compiles (the
 * lexer of all of bash: tens of milliseconds) is ready before any command is judged.
 */
export async function warmBashParser(): Promise<void> {
  (await bashParser()).parse(WARM_LINE)?.delete();
}

/** Parses bash source; the caller must `delete()` the tree. Null when the parser gave up. */
export async function parseBash(source: string): Promise<Tree | null> {
  const parser = await bashParser();
  return parser.parse(source);
}
