// The `tackle` command as a few bundled files: Node spends most of a cold start resolving and
// loading hundreds of small ES modules (zod alone is about 95), so the CLI is bundled while the
// library (`dist/index.js`) stays tsc's one-module-per-file output with its type declarations.
//
// Every output file sits one folder below dist/ (dist/cli/main.js and dist/cli-chunks/*.js), so a
// module's own `import.meta.url` can be rebuilt from the file it lands in: descriptions (.txt),
// package.json, worker scripts and lazily required packages are then found where tsc put them.
import { build } from "esbuild";
import { readFile, rm } from "node:fs/promises";
import { relative, resolve } from "node:path";

const src = resolve("src");

// Loaded by tackle on first use, or finding their own files at run time: left to Node, unbundled.
const external = ["googleapis", "mammoth", "web-tree-sitter", "tree-sitter-bash", "playwright-core"];

/** Rewrites `import.meta.url` in tackle's own modules to the URL of their tsc output in dist/. */
const ownModuleUrls = {
  name: "own-module-urls",
  setup(esbuild) {
    esbuild.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(src)) return undefined;
      const text = await readFile(args.path, "utf8");
      const compiled = relative(src, args.path).replace(/\.ts$/, ".js").split("\\").join("/");
      const url = `new URL(${JSON.stringify(`../${compiled}`)}, import.meta.url).href`;
      return { contents: text.replaceAll("import.meta.url", url), loader: "ts" };
    });
  },
};

// Chunk names carry content hashes: an earlier build's chunks would otherwise pile up.
await rm("dist/cli-chunks", { recursive: true, force: true });
await build({
  entryPoints: { "cli/main": "src/cli/main.ts" },
  outdir: "dist",
  chunkNames: "cli-chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  // ES builds first: some packages' CommonJS builds (jsonc-parser's UMD) require their own files by computed names.
  mainFields: ["module", "main"],
  plugins: [ownModuleUrls],
  // Bundled CommonJS packages call require() for Node's own modules; ES output has none of its own.
  banner: {
    js: 'import { createRequire as __tackleCreateRequire } from "node:module"; const require = __tackleCreateRequire(import.meta.url);',
  },
  legalComments: "none",
  logLevel: "warning",
});
// tsc's map describes the module this bundle replaced.
await rm("dist/cli/main.js.map", { force: true });
