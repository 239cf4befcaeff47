#!/usr/bin/env node
// `tackle`: runs the bundled command line (dist/cli/tackle.cjs, built by scripts/bundle-cli.mjs)
// with V8's code cache. Start-up is spent loading code, so one file compiled once beats hundreds
// of ES modules parsed on every run. Without the bundle (tsc's output alone) it runs the modules.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { baselineWasmForProcess } from "../process/baseline-wasm.js";
import { runWithCodeCache } from "./code-cache.js";

baselineWasmForProcess();
const bundle = fileURLToPath(new URL("./tackle.cjs", import.meta.url));
if (existsSync(bundle)) runWithCodeCache(bundle, process.argv.slice(2));
else await import("./run.js");
