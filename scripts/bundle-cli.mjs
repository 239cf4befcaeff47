// The `tackle` command as one CommonJS file, dist/cli/tackle.cjs, which dist/cli/main.js runs with
// V8's code cache. Node spends most of a cold start loading hundreds of small ES modules (zod alone
// is about 95) and compiling them; one file can be compiled once and cached. Tool groups and the
// other parts only some commands use stay lazy: esbuild keeps each dynamic import's module behind a
// function that first runs when it is imported. The library (dist/index.js) stays tsc's output.
import { build } from "esbuild";
import { readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, relative, resolve } from "node:path";
import { asciiEscaped } from "./ascii-escaped.mjs";
import { BUNDLE_HEAD } from "../dist/cli/code-cache.js";

const src = resolve("src");
// Code run by node:vm cannot import() without an experimental flag, so the launcher lends its own
// (a parameter of the wrapper, `__tackleImport`) and this module forwards to it.
const runtimeImport = resolve("src/process/import-at-runtime.ts");

// Loaded by tackle on first use, or finding their own files at run time: left to Node, unbundled.
const external = ["googleapis", "mammoth", "pdfjs-dist", "tree-sitter-bash", "playwright-core", "pg", "@opentelemetry/*"];

/**
 * Rewrites `import.meta.url` in tackle's own modules to the URL of their tsc output in dist/, so
 * descriptions (.txt), package.json, worker scripts and lazily required packages are found where
 * they are. `__tackleModuleUrl` is the banner's, below.
 */
const ownModuleUrls = {
  name: "own-module-urls",
  setup(esbuild) {
    esbuild.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(src)) return undefined;
      if (args.path === runtimeImport) {
        return { contents: "export const importAtRuntime = (specifier) => __tackleImport(specifier);", loader: "ts" };
      }
      const text = await readFile(args.path, "utf8");
      const compiled = relative(src, args.path).replace(/\.ts$/, ".js").split("\\").join("/");
      // Descriptions go in last, so their text is never taken for code to rewrite.
      const urls = text.replaceAll("import.meta.url", `__tackleModuleUrl(${JSON.stringify(compiled)})`);
      return { contents: await withDescriptions(args.path, urls), loader: "ts" };
    });
  },
};

/**
 * A tool's description named by a literal file (`loadDescription(import.meta.url, "glob.txt")`, its
 * URL already rewritten by ownModuleUrls) becomes the text itself, as loadDescription returns it:
 * read at build time rather than one file at a time on every start (about 5 ms for the built-in
 * tools). Other calls still read their file. The text goes in as it is (a function, so `$&` or `$$`
 * in it are not replacement patterns).
 */
async function withDescriptions(file, text) {
  const calls = [...text.matchAll(/loadDescription\(__tackleModuleUrl\("[\w./-]+"\), "([\w.-]+\.txt)"\)/g)];
  let out = text;
  for (const [call, name] of calls) {
    const description = (await readFile(resolve(dirname(file), name), "utf8")).trim();
    out = out.replace(call, () => JSON.stringify(description));
  }
  return out;
}

/**
 * zod's `z.locales` holds every language's error messages (about 400 KB of the bundle, read and
 * compiled on every start); tackle and the packages it bundles only ever use English, which zod
 * configures itself. The namespace keeps English alone.
 */
const englishOnlyZod = {
  name: "english-only-zod",
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir)
        ? { path: relative(".", resolve(args.resolveDir, "../locales/en.js")), namespace: "zod-locales" }
        : undefined,
    );
    esbuild.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(resolve(args.path))};`,
      resolveDir: dirname(resolve(args.path)),
      loader: "js",
    }));
  },
};

/**
 * commander loads node:child_process when it loads (about 10 ms: net, dgram and their internals)
 * for the one thing tackle never does with it, running a subcommand as its own program. It gets
 * the module on that first use instead, as tackle's own code does (src/process/child-process.ts).
 */
const lazyChildProcessInCommander = {
  name: "lazy-child-process-in-commander",
  setup(esbuild) {
    esbuild.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const text = await readFile(args.path, "utf8");
      const eager = "const childProcess = require('node:child_process');";
      if (!text.includes(eager)) throw new Error(`${args.path} no longer loads node:child_process as expected; update ${import.meta.url}`);
      const lazy = "const childProcess = { get spawn() { return require('node:child_process').spawn; } };";
      return { contents: text.replace(eager, lazy), loader: "js" };
    });
  },
};

/**
 * The MCP SDK's server and client each load their own copy of ajv when they load (about 8,000
 * lines run at every start) for the JSON Schemas they check: elicitation answers, other servers'
 * tool outputs. Most runs check none. Their default validator here is the SDK's own class, made
 * when first asked for a validator; esbuild keeps a module that is only required behind a function.
 */
const lazyAjvInMcpSdk = {
  name: "lazy-ajv-in-mcp-sdk",
  setup(esbuild) {
    esbuild.onLoad({ filter: /[\\/]@modelcontextprotocol[\\/](server|client)[\\/]dist[\\/]shimsNode\.mjs$/ }, async (args) => {
      const text = await readFile(args.path, "utf8");
      const eager = /^import \{ n as AjvJsonSchemaValidator \} from "(\.\/ajvProvider-[\w-]+\.mjs)";$/m;
      const found = eager.exec(text);
      if (!found) throw new Error(`${args.path} no longer imports ajv's validator as expected; update ${import.meta.url}`);
      const lazy = [
        "let loadedValidator;",
        "class AjvJsonSchemaValidator {",
        "  #args; #real;",
        "  constructor(...args) { this.#args = args; }",
        "  get ajv() { return this.#made().ajv; }",
        "  getValidator(schema) { return this.#made().getValidator(schema); }",
        `  #made() { return (this.#real ??= new (loadedValidator ??= require(${JSON.stringify(found[1])}).n)(...this.#args)); }`,
        "}",
      ].join("\n");
      return { contents: text.replace(found[0], () => lazy), loader: "js", resolveDir: dirname(args.path) };
    });
  },
};

/**
 * The shell tools' grammar runtime goes into the bundle, so the code cache covers it: loaded as an
 * ES module it was compiled afresh by every process that judged a command (~10 ms of a first shell
 * call). Its CommonJS build: the ES one finds its files through import.meta.url, which the bundle
 * does not have; tackle names both wasm files itself (src/tools/shell/analysis/bash-parser.ts).
 */
const treeSitterCommonJs = {
  name: "tree-sitter-commonjs",
  setup(esbuild) {
    esbuild.onResolve({ filter: /^web-tree-sitter$/ }, (args) => ({
      path: createRequire(resolve(args.resolveDir, "x.js")).resolve("web-tree-sitter"),
    }));
  },
};

/**
 * Modules whose top level builds values a start seldom needs, made to run on first use: each
 * re-exports a CommonJS twin whose exports are getters, and the first read of any runs the
 * module's code. jsonc-parser's 1,200 strings of indentation for formatting, about 2.5 ms of
 * every start; only `tackle rules` formats. (The MCP SDK's OAuth schemas would be another 5 ms,
 * but the SDK's registry of spec types reads them all as it loads.) A module that no longer looks
 * as expected stops the build.
 */
const LAZY_MODULES = [/[\\/]jsonc-parser[\\/]lib[\\/]esm[\\/]impl[\\/]string-intern\.js$/];

const lazyModules = {
  name: "lazy-modules",
  setup(esbuild) {
    // The module itself re-exports a CommonJS twin, whose exports esbuild then reads as properties
    // at each use (an ES module's would be bound when it loads).
    for (const filter of LAZY_MODULES) {
      esbuild.onLoad({ filter }, (args) => ({ contents: `export * from ${JSON.stringify(`${args.path}.lazy.cjs`)};`, loader: "js" }));
    }
    // Named relative to the project, as the bundle names every module, not by where it was built.
    esbuild.onResolve({ filter: /\.lazy\.cjs$/ }, (args) => ({ path: relative(".", args.path), namespace: "lazy-module" }));
    esbuild.onLoad({ filter: /.*/, namespace: "lazy-module" }, async (args) => {
      const file = resolve(args.path.slice(0, -".lazy.cjs".length));
      return { contents: lazyModule(await readFile(file, "utf8"), file), loader: "js" };
    });
  },
};

/**
 * An ES module's text as a CommonJS module that runs that text when one of its exports is first
 * read. Modules that import nothing: a require() in the twin would find a package's CommonJS build,
 * a second copy beside the ES one the rest of the bundle uses.
 */
function lazyModule(text, file) {
  const exported = new Map();
  const body = text.split("\n").map((line) => {
    const declared = /^export (const|let|var|function|class) (\w+)/.exec(line);
    if (declared) {
      exported.set(declared[2], declared[2]);
      return line.slice("export ".length);
    }
    const list = /^export \{([^}]*)\};?$/.exec(line);
    if (list) {
      for (const entry of list[1].split(",")) {
        const [local, as = local] = entry.trim().split(/\s+as\s+/);
        exported.set(as, local);
      }
      return "";
    }
    if (/^(import|export)\b/.test(line))
      throw new Error(`${file}: cannot defer "${line.slice(0, 80)}"; update lazyModule in ${import.meta.url}`);
    return line;
  });
  if (exported.size === 0) throw new Error(`${file} exports nothing lazyModule recognises; update ${import.meta.url}`);
  const values = [...exported].map(([as, local]) => `${JSON.stringify(as)}: ${local}`).join(", ");
  const names = JSON.stringify([...exported.keys()]);
  return [
    "let loaded;",
    "function load() {",
    "  if (loaded) return loaded;",
    ...body,
    `  return (loaded = { ${values} });`,
    "}",
    `for (const name of ${names}) Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });`,
  ].join("\n");
}

// Names a bundled module cannot shadow: they are free identifiers to esbuild, bound here in the
// wrapper's scope (and __tackleImport by the wrapper itself, src/cli/code-cache.ts). Packages'
// own import.meta.url becomes the bundle's URL.
const banner = [
  'var __tackleUrl = require("node:url"), __tacklePath = require("node:path");',
  "var __tackleBundleUrl = __tackleUrl.pathToFileURL(__filename).href;",
  "function __tackleModuleUrl(file) { return __tackleUrl.pathToFileURL(__tacklePath.join(__dirname, '..', file)).href; }",
].join("\n");

await rm("dist/cli-chunks", { recursive: true, force: true });
await build({
  entryPoints: ["src/cli/run.ts"],
  outfile: "dist/cli/tackle.cjs",
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external,
  // ES builds first: some packages' CommonJS builds (jsonc-parser's UMD) require their own files by computed names.
  mainFields: ["module", "main"],
  plugins: [ownModuleUrls, englishOnlyZod, lazyChildProcessInCommander, lazyAjvInMcpSdk, treeSitterCommonJs, lazyModules],
  define: { "import.meta.url": "__tackleBundleUrl" },
  banner: { js: banner },
  legalComments: "none",
  // Every start reads the whole file into a string, and a first run (no code cache yet) parses all
  // of it: without whitespace and with simpler syntax it is 31% smaller, and such a start about 5 ms
  // shorter (2 ms with the cache). Names stay as written, so stack traces still name functions.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
});

// ASCII alone, so the launcher reads it as a one-byte string (see scripts/ascii-escaped.mjs), and
// already inside the function the launcher compiles (BUNDLE_HEAD, from tsc's output just built).
const bundled = await readFile("dist/cli/tackle.cjs", "utf8");
await writeFile("dist/cli/tackle.cjs", `${BUNDLE_HEAD}${asciiEscaped(bundled)}\n})`);

// The launcher itself (src/cli/main.ts), the `tackle` bin, as CommonJS: started as an ES module
// (dist/cli/main.js) it makes Node set up its ES module loader first, about 5 ms of every start.
// Without the bundle it still imports tsc's output, "./run.js", which stays a file of its own.
await build({
  entryPoints: ["src/cli/main.ts"],
  outfile: "dist/cli/main.cjs",
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  external: ["./run.js"],
  define: { "import.meta.url": "__tackleLauncherUrl" },
  banner: { js: 'var __tackleLauncherUrl = require("node:url").pathToFileURL(__filename).href;' },
  legalComments: "none",
  logLevel: "warning",
});
